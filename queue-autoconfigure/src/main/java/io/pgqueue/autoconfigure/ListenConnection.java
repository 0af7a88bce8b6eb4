package io.pgqueue.autoconfigure;

import java.sql.SQLException;
import java.util.Locale;
import java.util.function.Supplier;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The direct connection a database's LISTEN uses beside a transaction pooler ({@code notify-url} or
 * {@code notify-data-source}): unpooled connections from the URL, or the named DataSource bean.
 *
 * @param dataSource where the LISTEN connection comes from
 * @param property the property that configured it, for errors
 * @param description what logs show of it (no password)
 */
record ListenConnection(DataSource dataSource, String property, String description) {

    /** What {@code pg_stat_activity} shows for the connection, unless the URL names another application. */
    static final String APPLICATION_NAME = "pgqueue-listen";

    /**
     * The configured direct connection, or null when LISTEN goes through the database's own DataSource.
     *
     * @param defaultLogin the login when neither the URL nor the notify-username and notify-password properties
     * give one; asked only for a URL
     */
    static @Nullable ListenConnection of(PgQueueProperties.NotifyConnection configured, String prefix,
            BeanFactory beanFactory, Supplier<Credentials> defaultLogin) {
        if (!configured.isConfigured()) {
            return null;
        }
        String property = configured.property(prefix);
        if (configured.dataSource() != null) {
            return new ListenConnection(DataSourceBeans.named(beanFactory, property, configured.dataSource()),
                    property, configured.describe());
        }
        String url = configured.url();
        PGSimpleDataSource direct = new PGSimpleDataSource();
        direct.setUrl(url);
        String username = (configured.username() != null) ? configured.username() : direct.getUser();
        String password = (configured.password() != null) ? configured.password() : direct.getPassword();
        if (username == null || password == null) {
            Credentials login = defaultLogin.get();
            username = (username != null) ? username : login.username();
            password = (password != null) ? password : login.password();
        }
        direct.setUser(username);
        direct.setPassword(password);
        if (url != null && !url.toLowerCase(Locale.ROOT).contains("applicationname=")) {
            direct.setApplicationName(APPLICATION_NAME);
        }
        return new ListenConnection(direct, property, configured.describe());
    }

    /** A login. */
    record Credentials(@Nullable String username, @Nullable String password) {

        static final Credentials NONE = new Credentials(null, null);
    }

    /** The login a DataSource uses, when it tells it (a Hikari pool does). */
    static @Nullable Credentials credentialsOf(DataSource dataSource, ClassLoader classLoader) {
        if (!ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", classLoader)) {
            return null;
        }
        return Hikari.credentialsOf(dataSource);
    }

    /** Kept apart so that nothing loads Hikari's classes when the application has no Hikari. */
    private static final class Hikari {

        static @Nullable Credentials credentialsOf(DataSource dataSource) {
            try {
                if (dataSource.isWrapperFor(HikariDataSource.class)) {
                    HikariDataSource pool = dataSource.unwrap(HikariDataSource.class);
                    return new Credentials(pool.getUsername(), pool.getPassword());
                }
            }
            catch (SQLException ex) {
                // not a pool that tells its credentials: the properties or the URL must give them
            }
            return null;
        }
    }
}
