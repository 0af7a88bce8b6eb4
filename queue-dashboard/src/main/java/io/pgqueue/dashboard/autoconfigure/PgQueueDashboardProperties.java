package io.pgqueue.dashboard.autoconfigure;

import java.time.Duration;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The dashboard ({@code pgqueue.dashboard.*}).
 */
@ConfigurationProperties("pgqueue.dashboard")
public class PgQueueDashboardProperties {

    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

    /** Whether the application serves the dashboard. */
    private boolean enabled = true;

    /** Where the dashboard is served, e.g. /pgqueue (no trailing slash). */
    private String path = "/pgqueue";

    /**
     * Whether the dashboard only shows. Its actions (pause, resume, cancel, retry, purge, trigger) also need
     * Spring Security, a signed-in user and CSRF protection on the dashboard's path.
     */
    private boolean readOnly = true;

    /** Whether payloads, outputs and errors (with their stack traces) are shown rather than masked. */
    private boolean showPayloads = false;

    /** How often open pages refresh their numbers. */
    private Duration refreshInterval = Duration.ofSeconds(2);

    /**
     * The role a signed-in user needs for the dashboard's actions (as Spring Security names it, e.g. OPS for
     * ROLE_OPS). Unset, any user the application's security lets reach the dashboard may act.
     */
    private @Nullable String operatorRole;

    public @Nullable String getOperatorRole() {
        return operatorRole;
    }

    public void setOperatorRole(@Nullable String operatorRole) {
        this.operatorRole = (operatorRole != null && !operatorRole.isBlank()) ? operatorRole.trim() : null;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        if (!PATH.matcher(path).matches()) {
            throw new IllegalArgumentException("pgqueue.dashboard.path must be a path such as /pgqueue or /ops/queues "
                    + "(segments of letters, digits, '.', '_', '~', '-'; no trailing slash), was '" + path + "'");
        }
        this.path = path;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    public void setReadOnly(boolean readOnly) {
        this.readOnly = readOnly;
    }

    public boolean isShowPayloads() {
        return showPayloads;
    }

    public void setShowPayloads(boolean showPayloads) {
        this.showPayloads = showPayloads;
    }

    public Duration getRefreshInterval() {
        return refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        if (refreshInterval.compareTo(Duration.ofMillis(200)) < 0) {
            throw new IllegalArgumentException(
                    "pgqueue.dashboard.refresh-interval must be at least 200ms, was " + refreshInterval);
        }
        this.refreshInterval = refreshInterval;
    }
}
