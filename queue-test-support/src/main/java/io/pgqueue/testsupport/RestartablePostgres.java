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

    /**
     * A crash of the server: SIGKILL to the postmaster and every process of it at once, as a power loss or the
     * kernel's OOM killer would end them. What was only in shared memory (WAL not yet written, so asynchronous
     * commits of the last moments) is lost; {@link #startServer()} then recovers from the WAL on disk.
     */
    public synchronized void crash() {
        try {
            long postmaster = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
            ProcessHandle process = ProcessHandle.of(postmaster)
                .orElseThrow(() -> new IllegalStateException("no postmaster with pid " + postmaster));
            java.util.List<ProcessHandle> all = new java.util.ArrayList<>(process.descendants().toList());
            all.add(process);
            all.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle handle : all) {
                handle.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
            try {
                // lets go of the data directory's lock (its stop of a server that is gone fails, as it may)
                postgres.close();
            }
            catch (IOException | RuntimeException ex) {
                // the server is gone already: nothing else to stop
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
            throw new IllegalStateException("the server's processes did not end", ex);
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
                // zonky's defaults turn both off; a crash of the server must lose only what a real one loses
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("fsync", "on")
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

    /** A DataSource of its own for a database of this server (no pool: each use connects anew, as after a restart). */
    public javax.sql.DataSource dataSource(String database) {
        org.postgresql.ds.PGSimpleDataSource dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setUrl(jdbcUrl(database));
        dataSource.setUser(username());
        return dataSource;
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
