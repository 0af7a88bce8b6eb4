package io.pgqueue.autoconfigure;

import java.util.HashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code pgqueue} Actuator endpoint, beside Boot's own {@code access} and {@code cache}
 * settings of every endpoint.
 */
@ConfigurationProperties("management.endpoint.pgqueue")
public class PgQueueEndpointProperties {

    /**
     * When to show dead jobs' payloads and errors: never, when-authorized (the user has one of the roles,
     * or any authenticated user when no roles are set) or always.
     */
    private Show showValues = Show.NEVER;

    /**
     * Roles that may see payloads and errors when show-values is when-authorized; any authenticated user when
     * empty.
     */
    private Set<String> roles = new HashSet<>();

    public Show getShowValues() {
        return showValues;
    }

    public void setShowValues(Show showValues) {
        this.showValues = showValues;
    }

    public Set<String> getRoles() {
        return roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }
}
