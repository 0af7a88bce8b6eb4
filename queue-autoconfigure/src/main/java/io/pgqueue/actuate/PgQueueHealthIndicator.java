package io.pgqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.QueueStats;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of pgqueue: DOWN when the database cannot be read or a container that should run has stopped;
 * with a {@code max-lag}, a queue whose oldest ready job waits longer turns the status to the configured
 * lag status (OUT_OF_SERVICE by default). Details list each queue's lag and, past
 * {@code vacuum-hold-warning}, what holds back vacuum in pgqueue's database (a warning that leaves the status
 * as it is: a report or a backup is no reason to restart the application).
 * <p>
 * The check runs on a thread of its own and every call waits for it at most {@code response-timeout}: while a
 * database does not answer (connections time out after seconds), a call answers in time with the status of the
 * last check that finished and its age ({@code checkAgeSeconds}), so that one database's outage does not fail
 * every instance's probe at once. A check is never started while another is still running.
 */
public class PgQueueHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

    private static final org.apache.commons.logging.Log unattendedLog = org.apache.commons.logging.LogFactory
        .getLog(PgQueueHealthIndicator.class);

    /** How long a call waits for the check unless told otherwise. */
    public static final Duration DEFAULT_RESPONSE_TIMEOUT = Duration.ofSeconds(2);

    /** How long ready jobs of a queue no node listens to wait before the queue is listed, unless told otherwise. */
    public static final Duration DEFAULT_UNATTENDED_AFTER = Duration.ofMinutes(1);

    private final QueueAdmin admin;

    private final @Nullable QueueListenerContainerRegistry registry;

    private final @Nullable Duration maxLag;

    private final Status lagStatus;

    private final Duration vacuumHoldWarning;

    private final Duration responseTimeout;

    private final Duration unattendedAfter;

    /** The unattended queues already logged: each is logged once, when first found. */
    private final java.util.Set<String> loggedUnattended = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The check's own thread, started with the first call. */
    private @Nullable ExecutorService checks;

    /** The check in progress, or the last one. */
    private @Nullable CompletableFuture<Checked> current;

    /** The last check that finished. */
    private volatile @Nullable Checked last;

    public PgQueueHealthIndicator(QueueAdmin admin, @Nullable QueueListenerContainerRegistry registry,
            @Nullable Duration maxLag, Status lagStatus) {
        this(admin, registry, maxLag, lagStatus, Duration.ofMinutes(5));
    }

    public PgQueueHealthIndicator(QueueAdmin admin, @Nullable QueueListenerContainerRegistry registry,
            @Nullable Duration maxLag, Status lagStatus, Duration vacuumHoldWarning) {
        this(admin, registry, maxLag, lagStatus, vacuumHoldWarning, DEFAULT_RESPONSE_TIMEOUT);
    }

    /**
     * @param responseTimeout longest a call waits for a check before it answers with the last finished one
     */
    public PgQueueHealthIndicator(QueueAdmin admin, @Nullable QueueListenerContainerRegistry registry,
            @Nullable Duration maxLag, Status lagStatus, Duration vacuumHoldWarning, Duration responseTimeout) {
        this(admin, registry, maxLag, lagStatus, vacuumHoldWarning, responseTimeout, DEFAULT_UNATTENDED_AFTER);
    }

    /**
     * @param unattendedAfter how long a queue's oldest ready job waits, with no node listening to the queue,
     * before the queue is listed as unattended (the status does not change) and logged once
     */
    public PgQueueHealthIndicator(QueueAdmin admin, @Nullable QueueListenerContainerRegistry registry,
            @Nullable Duration maxLag, Status lagStatus, Duration vacuumHoldWarning, Duration responseTimeout,
            Duration unattendedAfter) {
        super("pgqueue health check failed");
        this.unattendedAfter = unattendedAfter;
        this.responseTimeout = responseTimeout;
        this.vacuumHoldWarning = vacuumHoldWarning;
        this.admin = admin;
        this.registry = registry;
        this.maxLag = maxLag;
        this.lagStatus = lagStatus;
    }

    /** A finished check: its health and when it finished. */
    private record Checked(Health health, long finishedNanos) {
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        CompletableFuture<Checked> check = startCheck();
        Checked answer;
        try {
            answer = check.get(responseTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (TimeoutException ex) {
            answer = last;
            String waiting = "the check has been running for longer than " + responseTimeout.toMillis()
                    + " ms (a database that does not answer?)";
            if (answer == null) {
                builder.unknown().withDetail("check", waiting + "; no check has finished yet");
                return;
            }
            builder.withDetail("check", waiting + "; this is the last finished check's status");
        }
        catch (ExecutionException ex) {
            throw (ex.getCause() instanceof Exception cause) ? cause : ex;
        }
        builder.status(answer.health().getStatus()).withDetails(answer.health().getDetails());
        builder.withDetail("checkAgeSeconds", (System.nanoTime() - answer.finishedNanos()) / 1_000_000 / 1000.0);
    }

    /** The check in progress, else a new one on the check's own thread. */
    private synchronized CompletableFuture<Checked> startCheck() {
        if (current != null && !current.isDone()) {
            return current;
        }
        if (checks == null) {
            checks = Executors.newSingleThreadExecutor((runnable) -> {
                Thread thread = new Thread(runnable, "pgqueue-health");
                thread.setDaemon(true);
                return thread;
            });
        }
        current = CompletableFuture.supplyAsync(() -> {
            Health.Builder checked = new Health.Builder();
            try {
                check(checked);
            }
            catch (RuntimeException ex) {
                checked = Health.down(ex);
            }
            Checked done = new Checked(checked.build(), System.nanoTime());
            last = done;
            return done;
        }, checks);
        return current;
    }

    @Override
    public synchronized void destroy() {
        if (checks != null) {
            checks.shutdownNow();
        }
    }

    private void check(Health.Builder builder) {
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
        Map<String, Object> unattended = new LinkedHashMap<>();
        for (QueueStats queue : queues) {
            if (queue.unattended(unattendedAfter)) {
                unattended.put(queue.queue(), queue.lag().toMillis() / 1000.0);
                if (loggedUnattended.add(queue.queue())) {
                    unattendedLog.warn("Queue '" + queue.queue() + "' has ready jobs waiting " + queue.lag().toSeconds()
                            + " s and no node listens to it: is its @QueueListener method on a Spring bean "
                            + "(@Component), and is that application running?");
                }
            }
        }
        if (!unattended.isEmpty()) {
            // the status stays: sending to a queue consumed elsewhere, later, is legitimate
            builder.withDetail("unattendedQueues", unattended);
        }
        Duration heartbeatAge = (registry != null) ? registry.heartbeatAge() : null;
        if (heartbeatAge != null) {
            builder.withDetail("heartbeatAgeSeconds", heartbeatAge.toMillis() / 1000.0);
        }
        List<String> staleHeartbeats = (registry != null) ? registry.staleHeartbeats() : List.of();
        if (!staleHeartbeats.isEmpty()) {
            builder.withDetail("staleHeartbeats", staleHeartbeats);
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
        else if (!staleHeartbeats.isEmpty()) {
            builder.down().withDetail("heartbeat", "older than the "
                    + "node timeout on database(s) " + staleHeartbeats + ": this node has stopped claiming there and "
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
