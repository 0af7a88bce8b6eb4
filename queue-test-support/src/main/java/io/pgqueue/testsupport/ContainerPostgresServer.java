package io.pgqueue.testsupport;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * PostgreSQL in a Testcontainers container. Only loaded when Testcontainers is on the classpath.
 */
final class ContainerPostgresServer implements PostgresServer {

    private static final String IMAGE = "postgres:17";

    private final PostgreSQLContainer container;

    private ContainerPostgresServer(PostgreSQLContainer container) {
        this.container = container;
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        }
        catch (RuntimeException | LinkageError ex) {
            return false;
        }
    }

    static ContainerPostgresServer start() {
        PostgreSQLContainer container = new PostgreSQLContainer(IMAGE).withCommand("postgres", "-c", "max_connections=300",
                "-c", "fsync=off");
        container.start();
        return new ContainerPostgresServer(container);
    }

    @Override
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + container.getHost() + ":" + container.getMappedPort(5432) + "/" + database;
    }

    @Override
    public String username() {
        return container.getUsername();
    }

    @Override
    public String password() {
        return container.getPassword();
    }

    @Override
    public String origin() {
        return "testcontainers";
    }

    @Override
    public void close() {
        container.stop();
    }
}
