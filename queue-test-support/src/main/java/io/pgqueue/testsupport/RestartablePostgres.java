package io.pgqueue.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * An embedded PostgreSQL on a fixed port and data directory that can be stopped (fast shutdown) and started
 * again on the same data, for tests of database restarts.
 */
public final class RestartablePostgres implements PostgresServer {

    private final Path dataDirectory;

    private final int port;

    private EmbeddedPostgres postgres;

    private RestartablePostgres(Path dataDirectory, int port) {
        this.dataDirectory = dataDirectory;
        this.port = port;
    }

    public static RestartablePostgres start() {
        try {
            RestartablePostgres server = new RestartablePostgres(Files.createTempDirectory("pgqueue-restartable"),
                    FreePorts.next());
            server.startServer();
            return server;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Fast shutdown: open connections are terminated, running transactions roll back. */
    public synchronized void stop() {
        try {
            postgres.close();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Starts the server again on the same data directory and port. */
    public synchronized void startServer() {
        try {
            postgres = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setPort(port)
                .setServerConfig("max_connections", "100")
                .start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://localhost:" + port + "/" + database;
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
        return "embedded (restartable)";
    }

    @Override
    public void close() {
        stop();
    }
}
