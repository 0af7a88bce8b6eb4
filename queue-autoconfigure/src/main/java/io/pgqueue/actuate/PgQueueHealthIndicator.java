package io.pgqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.QueueStats;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of pgqueue: DOWN when the database cannot be read or a container that should run has stopped;
 * with a {@code max-lag}, a queue whose oldest ready job waits longer turns the status to the configured
 * lag status (OUT_OF_SERVICE by default). Details list each queue's lag and, past
 * {@code vacuum-hold-warning}, what holds back vacuum in pgqueue's database (a warning that leaves the status
 * as it is: a report or a backup is no reason to restart the application).
 */
public class PgQueueHealthIndicator extends AbstractHealthIndicator {

    private final QueueAdmin admin;

    private final @Nullable QueueListenerContainerRegistry registry;

    private final @Nullable Duration maxLag;

    private final Status lagStatus;

    private final Duration vacuumHoldWarning;

    public PgQueueHealthIndicator(QueueAdmin admin, @Nullable QueueListenerContainerRegistry registry,
            @Nullable Duration maxLag, Status lagStatus) {
        this(admin, registry, maxLag, lagStatus, Duration.ofMinutes(5));
    }

    public PgQueueHealthIndicator(QueueAdmin admin, @Nullable QueueListenerContainerRegistry registry,
            @Nullable Duration maxLag, Status lagStatus, Duration vacuumHoldWarning) {
        super("pgqueue health check failed");
        this.vacuumHoldWarning = vacuumHoldWarning;
        this.admin = admin;
        this.registry = registry;
        this.maxLag = maxLag;
        this.lagStatus = lagStatus;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        // several databases: each one's state, and the queues of those that answer (a listing leaves out the others)
        List<DatabaseStatus> databases = admin.databases();
        List<String> down = new java.util.ArrayList<>();
        if (!databases.isEmpty()) {
            Map<String, Object> states = new LinkedHashMap<>();
            for (DatabaseStatus database : databases) {
                states.put(database.name(), !database.up() ? "DOWN: " + database.error()
                        : (database.replicaLag() != null) ? "UP, replica " + database.replicaLag().toMillis() / 1000.0
                                + " s behind" : "UP");
                if (!database.up()) {
                    down.add(database.name());
                }
            }
            builder.withDetail("databases", states);
        }
        List<QueueStats> queues = admin.queues();
        Map<String, Object> lags = new LinkedHashMap<>();
        List<String> lagging = new java.util.ArrayList<>();
        for (QueueStats queue : queues) {
            Duration lag = (queue.lag() != null) ? queue.lag() : Duration.ZERO;
            lags.put(queue.queue(), lag.toMillis() / 1000.0);
            if (maxLag != null && lag.compareTo(maxLag) > 0) {
                lagging.add(queue.queue());
            }
        }
        List<String> stopped = stoppedContainers();
        Instant now = Instant.now();
        admin.vacuumHold().filter((hold) -> hold.age(now).compareTo(vacuumHoldWarning) >= 0).ifPresent((hold) -> {
            Map<String, Object> held = new LinkedHashMap<>();
            held.put("kind", hold.kind().name());
            held.put("holder", hold.holder());
            if (hold.pid() != null) {
                held.put("pid", hold.pid());
            }
            held.put("ageSeconds", hold.age(now).toSeconds());
            held.put("xidAge", hold.xidAge());
            held.put("warning", hold.describe(now) + "; dead rows of the queue tables cannot be removed until it ends");
            builder.withDetail("vacuumHold", held);
        });
        builder.withDetail("lagSeconds", lags);
        Duration heartbeatAge = (registry != null) ? registry.heartbeatAge() : null;
        if (heartbeatAge != null) {
            builder.withDetail("heartbeatAgeSeconds", heartbeatAge.toMillis() / 1000.0);
        }
        Map<String, Long> fatalErrors = perContainer(QueueListenerContainer::fatalErrors);
        if (!fatalErrors.isEmpty()) {
            // each counted as its job's failure and its worker replaced: the queue still runs, operators look
            builder.withDetail("fatalHandlerErrors", fatalErrors);
        }
        Map<String, Long> stuckRuns = perContainer((container) -> (long) container.stuckRuns());
        if (!stuckRuns.isEmpty()) {
            // each holds a worker (and, TRANSACTIONAL, its transaction) until its handler returns
            builder.withDetail("stuckRuns", stuckRuns);
        }
        if (!down.isEmpty()) {
            builder.down().withDetail("databasesDown", down);
        }
        else if (!stopped.isEmpty()) {
            builder.down().withDetail("stoppedContainers", stopped);
        }
        else if (heartbeatAge != null && !registry.isNodeAlive()) {
            builder.down().withDetail("heartbeat", "older than the node timeout: this node has stopped claiming and "
                    + "the cluster may rescue its jobs");
        }
        else if (!lagging.isEmpty()) {
            builder.status(lagStatus).withDetail("laggingQueues", lagging).withDetail("maxLagSeconds",
                    maxLag.toMillis() / 1000.0);
        }
        else {
            builder.up();
        }
    }

    /** A count of each container's, where it is not zero. */
    private Map<String, Long> perContainer(java.util.function.ToLongFunction<QueueListenerContainer> count) {
        Map<String, Long> counts = new LinkedHashMap<>();
        if (registry != null) {
            registry.getListenerContainers().forEach((container) -> {
                long value = count.applyAsLong(container);
                if (value > 0) {
                    counts.put(container.id(), value);
                }
            });
        }
        return counts;
    }

    private List<String> stoppedContainers() {
        if (registry == null || !registry.isRunning()) {
            return List.of();
        }
        return registry.getListenerContainers()
            .stream()
            .filter((container) -> container.options().autoStartup() && !container.isRunning())
            .map(QueueListenerContainer::id)
            .toList();
    }
}
