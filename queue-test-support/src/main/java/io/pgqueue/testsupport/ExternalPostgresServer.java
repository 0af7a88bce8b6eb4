package io.pgqueue.testsupport;

import java.net.URI;
import java.util.Objects;

/**
 * A server named by a JDBC URL such as {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}.
 * Databases for tests are created next to the one in the URL.
 */
final class ExternalPostgresServer implements PostgresServer {

    private final String base;

    private final String query;

    private final String username;

    private final String password;

    ExternalPostgresServer(String jdbcUrl, String username, String password) {
        if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("Not a PostgreSQL JDBC URL: " + jdbcUrl);
        }
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        this.base = "jdbc:postgresql://" + uri.getRawAuthority() + "/";
        this.query = (uri.getRawQuery() != null) ? "?" + uri.getRawQuery() : "";
        this.username = Objects.requireNonNullElse(username, "postgres");
        this.password = Objects.requireNonNullElse(password, "");
    }

    @Override
    public String jdbcUrl(String database) {
        return base + database + query;
    }

    @Override
    public String username() {
        return username;
    }

    @Override
    public String password() {
        return password;
    }

    @Override
    public String origin() {
        return "external";
    }
}
