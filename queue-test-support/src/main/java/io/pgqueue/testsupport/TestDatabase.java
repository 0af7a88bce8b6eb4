package io.pgqueue.testsupport;

import java.sql.Connection;
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
        return connect(jdbcUrl, username, password);
    }

    /** {@code spring.datasource.*} properties pointing at this database, for context runners. */
    public String[] springProperties() {
        return new String[] { "spring.datasource.url=" + jdbcUrl, "spring.datasource.username=" + username,
                "spring.datasource.password=" + password };
    }

    /**
     * A connection through PostgreSQL's driver itself, not {@code DriverManager}: a test that runs with its own
     * context class loader (an ahead-of-time processed context) may be the first to ask, and DriverManager
     * then finds no driver.
     */
    static Connection connect(String jdbcUrl, String username, String password) throws SQLException {
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty("user", username);
        if (password != null) {
            properties.setProperty("password", password);
        }
        Connection connection = new org.postgresql.Driver().connect(jdbcUrl, properties);
        if (connection == null) {
            throw new SQLException("Not a PostgreSQL JDBC URL: " + jdbcUrl);
        }
        return connection;
    }
}
