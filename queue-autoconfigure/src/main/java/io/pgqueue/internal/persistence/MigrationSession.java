package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The one transaction pgqueue's schema migration runs in, on one connection. Flyway changes session settings
 * ({@code search_path}, {@code role}); behind a pooler in transaction mode a session is a server connection
 * that other clients get next, so every setting the migration changed is put back before the transaction
 * commits, on the same server connection. A transaction-scoped advisory lock serialises nodes migrating the
 * same schema at once.
 */
public final class MigrationSession {

    /** A setting's name as PostgreSQL lists it: identifiers, optionally prefixed by an extension's name. */
    private static final Pattern SETTING_NAME = Pattern.compile("[a-z_][a-z0-9_]*(\\.[a-z_][a-z0-9_]*)?");

    private static final Sql LOCK = Sql.named("migration.lock", "SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))");

    /** {@code role} is hidden from {@code pg_settings}: read it on its own. */
    private static final Sql SESSION_SETTINGS = Sql.named("migration.session-settings", """
            SELECT name, setting FROM pg_settings WHERE source = 'session'
            UNION ALL SELECT 'role', current_setting('role')
            """);

    private static final Sql SET = Sql.named("migration.set", "SELECT set_config(:name, :value, false)");

    /** Transaction-local: noted before the migration runs, so {@link #commit()} leaves it to end with the transaction. */
    private static final Sql LOCAL_LOCK_TIMEOUT = Sql.named("migration.local-lock-timeout", "SELECT set_config('lock_timeout', :value, true)");

    /** Every statement of a migration's session (for the statement catalogue). */
    static List<Sql> statements() {
        return List.of(LOCK, SESSION_SETTINGS, SET, LOCAL_LOCK_TIMEOUT);
    }

    private final Connection connection;

    private final Map<String, String> before;

    private final boolean autoCommit;

    private MigrationSession(Connection connection, Map<String, String> before, boolean autoCommit) {
        this.connection = connection;
        this.before = before;
        this.autoCommit = autoCommit;
    }

    /**
     * Starts the transaction on the connection, waits for other nodes migrating the schema, and notes the
     * session's settings.
     */
    public static MigrationSession begin(Connection connection, Schema schema) throws SQLException {
        return begin(connection, schema, null);
    }

    /**
     * As {@link #begin(Connection, Schema)}, with every lock wait of the transaction bounded (a transaction-local
     * {@code lock_timeout}, gone at its end like the transaction); the wait for other migrating nodes is not.
     */
    public static MigrationSession begin(Connection connection, Schema schema, @Nullable Duration lockTimeout)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            try (PreparedStatement lock = Jdbc.prepare(connection, LOCK,
                    (params) -> params.text("key", "pgqueue.migrate." + schema.name()))) {
                lock.execute();
            }
            if (lockTimeout != null) {
                try (PreparedStatement bound = Jdbc.prepare(connection, LOCAL_LOCK_TIMEOUT,
                        (params) -> params.text("value", lockTimeout.toMillis() + "ms"))) {
                    bound.execute();
                }
            }
            return new MigrationSession(connection, settings(connection), autoCommit);
        }
        catch (SQLException | RuntimeException ex) {
            connection.rollback();
            connection.setAutoCommit(autoCommit);
            throw ex;
        }
    }

    /** Puts back every session setting the migration changed, then commits everything at once. */
    public void commit() throws SQLException {
        try {
            for (Map.Entry<String, String> now : settings(connection).entrySet()) {
                String previous = before.get(now.getKey());
                if (!Objects.equals(previous, now.getValue())) {
                    restore(now.getKey(), previous);
                }
            }
            connection.commit();
        }
        finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /** Undoes the migration, and with it every setting it made. */
    public void rollback() throws SQLException {
        try {
            connection.rollback();
        }
        finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private void restore(String name, @Nullable String previous) throws SQLException {
        if (previous != null && !(name.equals("role") && previous.equals("none"))) {
            try (PreparedStatement set = Jdbc.prepare(connection, SET,
                    (params) -> params.text("name", name).text("value", previous))) {
                set.execute();
            }
            return;
        }
        if (!SETTING_NAME.matcher(name).matches()) {
            throw new IllegalStateException("Cannot reset the session setting '" + name + "' the migration made");
        }
        // a setting the session did not have before goes back to its default: only RESET makes it default again
        try (Statement reset = connection.createStatement()) {
            reset.execute("RESET " + name);
        }
    }

    private static Map<String, String> settings(Connection connection) throws SQLException {
        Map<String, String> settings = new LinkedHashMap<>();
        try (PreparedStatement statement = Jdbc.prepare(connection, SESSION_SETTINGS, Jdbc.Binder.NONE);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                settings.put(rows.getString(1), rows.getString(2));
            }
        }
        return settings;
    }
}
