package io.pgqueue.testsupport;

/**
 * A running PostgreSQL server reachable over JDBC, whoever started it.
 */
public interface PostgresServer extends AutoCloseable {

    /** JDBC URL of the given database on this server. */
    String jdbcUrl(String database);

    String username();

    String password();

    /** Where the server came from, for logs: "embedded", "testcontainers" or "external". */
    String origin();

    @Override
    default void close() {
    }
}
