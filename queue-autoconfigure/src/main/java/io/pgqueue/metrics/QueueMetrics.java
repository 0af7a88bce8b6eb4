package io.pgqueue.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.FairnessKeyCounts;
import io.pgqueue.model.JobState;
import io.pgqueue.model.QueueStats;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.WorkflowState;
import io.pgqueue.support.PeriodicLifecycle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Gauges of every queue's state, fed from a snapshot refreshed on an interval with one read of the counters
 * (never a query inside a gauge callback): {@code pgqueue.jobs{queue,state}} and
 * {@code pgqueue.job.lag{queue}} (seconds since the oldest ready job became due), and
 * {@code pgqueue.vacuum.hold} (seconds the oldest transaction, prepared transaction or replication slot has
 * held back vacuum in pgqueue's database, 0 when nothing does). With several databases
 * ({@code pgqueue.databases}) the queues' gauges carry a {@code database} tag, and
 * {@code pgqueue.database.up{database}} is 1 for each database that answered the last refresh, 0 otherwise.
 */
public class QueueMetrics extends PeriodicLifecycle implements MeterBinder {

    private static final Log logger = LogFactory.getLog(QueueMetrics.class);

    private final QueueAdmin admin;

    private final Duration refreshInterval;

    private final List<MultiGauge> jobGauges = new ArrayList<>();

    private final List<MultiGauge> lagGauges = new ArrayList<>();

    private final List<MultiGauge> keyGauges = new ArrayList<>();

    private final List<MultiGauge> databaseGauges = new ArrayList<>();

    /** With several databases, each one's name by the queues it lists (the default database holds the rest). */
    private volatile Map<String, String> databaseByQueue = Map.of();

    private volatile List<DatabaseStatus> databases = List.of();

    private volatile List<FairnessKeyCounts> fairnessKeys = List.of();

    private volatile Map<String, QueueStats> snapshot = Map.of();

    private volatile double vacuumHoldSeconds;

    private volatile Map<WorkflowState, Long> workflows = Map.of();

    private volatile Map<BatchState, Long> batches = Map.of();

    public QueueMetrics(QueueAdmin admin, Duration refreshInterval) {
        super("pgqueue-metrics");
        this.admin = admin;
        this.refreshInterval = refreshInterval;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        synchronized (this) {
            jobGauges.add(MultiGauge.builder("pgqueue.jobs")
                .description("Jobs per queue and state (scheduled, ready, running, dead)")
                .baseUnit("jobs")
                .register(registry));
            lagGauges.add(MultiGauge.builder("pgqueue.job.lag")
                .description("Time since the oldest ready job of the queue became due")
                .baseUnit("seconds")
                .register(registry));
            databaseGauges.add(MultiGauge.builder("pgqueue.database.up")
                .description("With several databases: 1 when the database answered at the last refresh, 0 when not")
                .register(registry));
            keyGauges.add(MultiGauge.builder("pgqueue.fairness.keys")
                .description("Fairness keys of a fair queue by what they do (active, paused, idle)")
                .baseUnit("keys")
                .register(registry));
        }
        for (WorkflowState state : WorkflowState.values()) {
            Gauge.builder("pgqueue.workflows", this, (metrics) -> metrics.workflows.getOrDefault(state, 0L))
                .description("Workflows in the state (as stored by the last counter squeeze)")
                .tag("state", state.value())
                .register(registry);
        }
        for (BatchState state : BatchState.values()) {
            Gauge.builder("pgqueue.batches", this, (metrics) -> metrics.batches.getOrDefault(state, 0L))
                .description("Batches in the state")
                .tag("state", state.value())
                .register(registry);
        }
        Gauge.builder("pgqueue.vacuum.hold", this, (metrics) -> metrics.vacuumHoldSeconds)
            .description("How long the oldest transaction, prepared transaction or replication slot has held back "
                    + "vacuum in pgqueue's database (0 when nothing does)")
            .baseUnit("seconds")
            .register(registry);
        refresh();
    }

    /** The last snapshot, by queue. */
    public Map<String, QueueStats> snapshot() {
        return snapshot;
    }

    /** Reads the counters now and updates the gauges' rows (new queues appear, vanished ones go). */
    public void refresh() {
        try {
            databases = admin.databases();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not refresh pgqueue metrics: " + ex.getMessage());
            return;
        }
        // at once, whatever the other readings do: a database found down reads 0 from this refresh on
        List<MultiGauge.Row<?>> databaseRows = new ArrayList<>();
        for (DatabaseStatus database : databases) {
            databaseRows.add(MultiGauge.Row.of(Tags.of("database", database.name()), database.up() ? 1 : 0));
        }
        synchronized (this) {
            databaseGauges.forEach((gauge) -> gauge.register(databaseRows, true));
        }
        try {
            Map<String, String> byQueue = new java.util.HashMap<>();
            databases.forEach((database) -> database.queues().forEach((queue) -> byQueue.put(queue, database.name())));
            databaseByQueue = byQueue;
            snapshot = admin.queues().stream().collect(Collectors.toMap(QueueStats::queue, Function.identity()));
            Instant now = Instant.now();
            vacuumHoldSeconds = admin.vacuumHold().map((hold) -> hold.age(now).toMillis() / 1000.0).orElse(0.0);
            workflows = admin.workflowsByState();
            batches = admin.batchesByState();
            fairnessKeys = admin.fairnessKeyCounts();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not refresh pgqueue metrics: " + ex.getMessage());
            return;
        }
        List<MultiGauge.Row<?>> jobRows = new ArrayList<>();
        List<MultiGauge.Row<?>> lagRows = new ArrayList<>();
        for (String queue : snapshot.keySet()) {
            Tags tags = queueTags(queue);
            for (JobState state : JobState.live()) {
                jobRows.add(MultiGauge.Row.of(tags.and("state", state.value()), () -> count(queue, state)));
            }
            lagRows.add(MultiGauge.Row.of(tags, () -> lagSeconds(queue)));
        }
        List<MultiGauge.Row<?>> keyRows = new ArrayList<>();
        for (FairnessKeyCounts keys : fairnessKeys) {
            keyRows.add(MultiGauge.Row.of(Tags.of("queue", keys.queue(), "state", "active"), keys.active()));
            keyRows.add(MultiGauge.Row.of(Tags.of("queue", keys.queue(), "state", "paused"), keys.paused()));
            keyRows.add(MultiGauge.Row.of(Tags.of("queue", keys.queue(), "state", "idle"), keys.idle()));
        }
        synchronized (this) {
            jobGauges.forEach((gauge) -> gauge.register(jobRows, false));
            lagGauges.forEach((gauge) -> gauge.register(lagRows, false));
            keyGauges.forEach((gauge) -> gauge.register(keyRows, true));
        }
    }

    /** A queue's tags: its name, and its database's when there are several. */
    private Tags queueTags(String queue) {
        return databases.isEmpty() ? Tags.of("queue", queue)
                : Tags.of("queue", queue, "database", databaseByQueue.getOrDefault(queue, databases.get(0).name()));
    }

    private long count(String queue, JobState state) {
        QueueStats stats = snapshot.get(queue);
        return (stats != null) ? stats.counts().count(state) : 0;
    }

    private double lagSeconds(String queue) {
        QueueStats stats = snapshot.get(queue);
        return (stats != null && stats.lag() != null) ? stats.lag().toNanos() / 1e9 : 0.0;
    }

    @Override
    protected void schedule() {
        every(refreshInterval, refreshInterval, "metrics refresh", this::refresh);
    }
}
