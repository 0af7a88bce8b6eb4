package io.pgqueue.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.postgresql.ds.PGSimpleDataSource;

/**
 * One database on the shared test server, private to a test class.
 *
 * @param name database name
 * @param jdbcUrl JDBC URL of the database
 * @param username user to connect as
 * @param password password, possibly empty
 */
public record TestDatabase(String name, String jdbcUrl, String username, String password) {

    /** A plain, unpooled DataSource on this database. */
    public DataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(jdbcUrl);
        dataSource.setUser(username);
        dataSource.setPassword(password);
        return dataSource;
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, username, password);
    }

    /** {@code spring.datasource.*} properties pointing at this database, for context runners. */
    public String[] springProperties() {
        return new String[] { "spring.datasource.url=" + jdbcUrl, "spring.datasource.username=" + username,
                "spring.datasource.password=" + password };
    }
}
