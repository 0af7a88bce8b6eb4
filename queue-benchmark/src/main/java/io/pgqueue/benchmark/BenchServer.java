package io.pgqueue.benchmark;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.testsupport.EmbeddedPostgresServer;
import io.pgqueue.testsupport.PostgresServer;
import io.pgqueue.testsupport.TestPostgres;

/**
 * The PostgreSQL the benchmark runs on: {@code PGQUEUE_BENCH_JDBC_URL} (a server of yours), else an embedded
 * one with PostgreSQL's default settings (fsync and synchronous commit on). Each scenario gets a fresh
 * database on it.
 */
final class BenchServer implements AutoCloseable {

    static final String URL_VARIABLE = "PGQUEUE_BENCH_JDBC_URL";

    private final PostgresServer server;

    private final AtomicInteger databases = new AtomicInteger();

    private BenchServer(PostgresServer server) {
        this.server = server;
    }

    static BenchServer start() {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return new BenchServer(TestPostgres.external(url, System.getenv("PGQUEUE_BENCH_USERNAME"),
                    System.getenv("PGQUEUE_BENCH_PASSWORD")));
        }
        // zonky starts the server with -F (no fsync): turn durability back on, as a real server has it
        return new BenchServer(EmbeddedPostgresServer.start(Map.of("fsync", "on", "synchronous_commit", "on",
                "max_connections", "200")));
    }

    String origin() {
        return server.origin();
    }

    /** A new empty database and a pool of {@code poolSize} connections to it. */
    Database createDatabase(String name, int poolSize) {
        String database = "bench_" + name + "_" + databases.incrementAndGet();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl("postgres"), server.username(),
                server.password()); Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            statement.execute("CREATE DATABASE " + database);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not create benchmark database " + database, ex);
        }
        return new Database(this, database, server.jdbcUrl(database), poolSize);
    }

    void drop(String database) {
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl("postgres"), server.username(),
                server.password()); Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
        catch (SQLException ex) {
            System.err.println("Could not drop " + database + ": " + ex.getMessage());
        }
    }

    /** The server settings that matter for the numbers. */
    Map<String, String> settings() {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl("postgres"), server.username(),
                server.password()); Statement statement = connection.createStatement()) {
            for (String name : List.of("server_version", "fsync", "synchronous_commit", "shared_buffers",
                    "max_connections", "wal_level", "max_wal_size")) {
                try (var rows = statement.executeQuery("SHOW " + name)) {
                    rows.next();
                    settings.put(name, rows.getString(1));
                }
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
        return settings;
    }

    String username() {
        return server.username();
    }

    String password() {
        return server.password();
    }

    @Override
    public void close() {
        server.close();
    }

    /** One benchmark database with its own pool. */
    static final class Database implements AutoCloseable {

        private final BenchServer server;

        final String name;

        final String url;

        final HikariDataSource pool;

        Database(BenchServer server, String name, String url, int poolSize) {
            this.server = server;
            this.name = name;
            this.url = url;
            this.pool = new HikariDataSource();
            pool.setJdbcUrl(url);
            pool.setUsername(server.username());
            pool.setPassword(server.password());
            pool.setMaximumPoolSize(poolSize);
            pool.setMinimumIdle(poolSize);
        }

        @Override
        public void close() {
            pool.close();
            server.drop(name);
        }
    }
}
