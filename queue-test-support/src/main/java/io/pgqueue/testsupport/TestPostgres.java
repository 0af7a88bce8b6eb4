package io.pgqueue.testsupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real PostgreSQL server per JVM for the test suite, and a fresh database per test class on it.
 * <p>
 * The server is, in this order: the one named by {@code PGQUEUE_TEST_JDBC_URL} (with
 * {@code PGQUEUE_TEST_USERNAME}/{@code PGQUEUE_TEST_PASSWORD}); a Testcontainers {@code postgres:17} when a
 * Docker engine answers; otherwise an embedded PostgreSQL from Maven Central.
 */
public final class TestPostgres {

    public static final String URL_VARIABLE = "PGQUEUE_TEST_JDBC_URL";

    private static final Logger logger = LoggerFactory.getLogger(TestPostgres.class);

    private static final AtomicInteger databaseCounter = new AtomicInteger();

    private static volatile PostgresServer server;

    private TestPostgres() {
    }

    /** The server shared by every test in this JVM, started on first use and stopped at exit. */
    public static PostgresServer server() {
        PostgresServer current = server;
        if (current == null) {
            synchronized (TestPostgres.class) {
                current = server;
                if (current == null) {
                    current = startServer();
                    server = current;
                    Runtime.getRuntime().addShutdownHook(new Thread(current::close, "pgqueue-test-postgres-stop"));
                }
            }
        }
        return current;
    }

    /**
     * Creates a new, empty database whose name starts with the given hint (usually the test class) and
     * returns its coordinates.
     */
    public static TestDatabase createDatabase(String hint) {
        PostgresServer postgres = server();
        String name = databaseName(hint);
        try (Connection connection = TestDatabase.connect(postgres.jdbcUrl("postgres"), postgres.username(),
                postgres.password()); Statement statement = connection.createStatement()) {
            // the name is built from [a-z0-9_] only, see databaseName
            statement.execute("CREATE DATABASE " + name);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not create test database " + name + " on " + postgres.origin()
                    + " PostgreSQL", ex);
        }
        return new TestDatabase(name, postgres.jdbcUrl(name), postgres.username(), postgres.password());
    }

    /** A server named by a JDBC URL, e.g. for tools that take their server from their own variable. */
    public static PostgresServer external(String jdbcUrl, String username, String password) {
        return new ExternalPostgresServer(jdbcUrl, username, password);
    }

    /** Creates a new database named after the given test class. */
    public static TestDatabase createDatabase(Class<?> testClass) {
        return createDatabase(testClass.getSimpleName());
    }

    static String databaseName(String hint) {
        String cleaned = hint.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (cleaned.length() > 40) {
            cleaned = cleaned.substring(0, 40);
        }
        return "t_" + cleaned + "_" + ProcessHandle.current().pid() + "_" + databaseCounter.incrementAndGet();
    }

    private static PostgresServer startServer() {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            logger.info("Tests use the PostgreSQL at {} ({})", url, URL_VARIABLE);
            return new ExternalPostgresServer(url, System.getenv("PGQUEUE_TEST_USERNAME"),
                    System.getenv("PGQUEUE_TEST_PASSWORD"));
        }
        if (testcontainersPresent() && ContainerPostgresServer.dockerAvailable()) {
            logger.info("Tests use PostgreSQL in a Testcontainers container");
            return ContainerPostgresServer.start();
        }
        logger.info("No {} and no Docker engine: tests use an embedded PostgreSQL", URL_VARIABLE);
        return EmbeddedPostgresServer.start(EmbeddedPostgresServer.TEST_SETTINGS);
    }

    private static boolean testcontainersPresent() {
        try {
            Class.forName("org.testcontainers.DockerClientFactory", false, TestPostgres.class.getClassLoader());
            return true;
        }
        catch (ClassNotFoundException ex) {
            return false;
        }
    }
}
