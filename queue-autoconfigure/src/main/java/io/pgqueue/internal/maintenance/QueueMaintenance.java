package io.pgqueue.internal.maintenance;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.pgqueue.admin.QueuesAdmin;
import io.pgqueue.internal.persistence.HistoryRepository.PartitionPlan;
import io.pgqueue.internal.persistence.HistoryRepository.PartitionUpkeep;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.support.PeriodicLifecycle;
import org.jspecify.annotations.Nullable;

/**
 * Periodic, cluster-safe upkeep on every node: promotes due scheduled jobs of all queues (so counts move
 * from scheduled to ready as time passes even for queues nobody consumes), folds counter deltas, keeps the
 * job table's planner statistics in step with its size while it grows faster than autovacuum visits it, and
 * now and then reconciles the counters with the job table.
 */
public class QueueMaintenance extends PeriodicLifecycle {

    private static final int PROMOTE_BATCH = 10_000;

    /** The counts of finished parents a fold takes (by the children of up to this many). */
    private static final int FOLD_BATCH = 1_000;

    /** Every how many passes counts left by stopped nodes are folded (ten seconds at the default interval). */
    private static final int FOLD_EVERY = 10;

    private final AtomicLong foldPasses = new AtomicLong();

    /** Passes between statistics checks while no counter deltas were folded (no traffic, or counters off). */
    private static final int IDLE_STATISTICS_CHECK_EVERY = 10;

    private final AtomicLong passes = new AtomicLong();

    private final Repositories repositories;

    private final QueuesAdmin admin;

    private final Duration interval;

    private final Duration reconcileInterval;

    private final RetentionSettings retention;

    /** How often the partitioned history is analysed while its partitions do not change. */
    public static final Duration ANALYZE_HISTORY_EVERY = Duration.ofHours(1);

    private final @Nullable PartitionPlan historyPartitions;

    /**
     * How long old rows are kept and how they are deleted.
     *
     * @param dead how long dead jobs are kept
     * @param history how long finished jobs stay in job_history, or null when history is off
     * @param workflows how long finished workflows (their nodes and outputs) are kept
     * @param batches how long finished batches (their callbacks) are kept once their members left
     * @param interval how often old rows are deleted
     * @param batchSize most rows per delete statement
     */
    public record RetentionSettings(Duration dead, @Nullable Duration history, Duration workflows, Duration batches,
            Duration interval, int batchSize) {
    }

    /**
     * How far back each pass looks for events whose waiting jobs are not due yet: a job parks within moments of its
     * await, so an emit that crossed it is recent; generous, since the look-up reads only that window's events.
     */
    static final Duration DELIVERY_WINDOW = Duration.ofMinutes(5);

    /** Starts the compensations of workflows that failed for good; returns how many it looked at. */
    @FunctionalInterface
    public interface Compensations {

        Compensations NONE = (limit) -> 0;

        int start(int limit);
    }

    /** Workflows whose compensations one statement looks at. */
    static final int COMPENSATIONS_PER_BATCH = 20;

    private Compensations compensations = Compensations.NONE;

    public QueueMaintenance(Repositories repositories, QueuesAdmin admin, Duration interval, Duration reconcileInterval,
            RetentionSettings retention, @Nullable PartitionPlan historyPartitions) {
        super("pgqueue-maintenance");
        this.historyPartitions = historyPartitions;
        this.repositories = repositories;
        this.admin = admin;
        this.interval = interval;
        this.reconcileInterval = reconcileInterval;
        this.retention = retention;
    }

    /** Who starts the compensations of failed workflows, on each pass. */
    public void setCompensations(Compensations compensations) {
        this.compensations = compensations;
    }

    @Override
    protected void schedule() {
        every(interval, interval, "maintenance", this::runOnce);
        every(reconcileInterval, reconcileInterval, "counter reconciliation", admin::reconcile);
        every(retention.interval(), retention.interval(), "retention", this::deleteOldRows);
        if (historyPartitions != null) {
            // partitions ahead exist from the start, not only after the first retention interval
            every(retention.interval(), Duration.ZERO, "history partitions", this::maintainHistoryPartitions);
        }
    }

    /**
     * Creates the history's partitions ahead of time and drops those past retention.
     * @return what was done, or null when history is off
     */
    public @Nullable PartitionUpkeep maintainHistoryPartitions() {
        return (historyPartitions != null) ? repositories.history().maintainPartitions(historyPartitions) : null;
    }

    /** Runs one pass now: promotion, counter folding and, while there is traffic, the statistics check. */
    public void runOnce() {
        // an event emitted while its job was still running (before the job parked) did not find it: made due now
        repositories.durable().deliverRecent(DELIVERY_WINDOW);
        // counts of finished workflow parents whose node stopped before folding them into their children: a
        // backstop, looked at every few passes (an idle node's statements are counted)
        if (foldPasses.getAndIncrement() % FOLD_EVERY == 0) {
            while (repositories.maintenance().foldDependencyCounts() >= FOLD_BATCH) {
                // many left at once: keep going in bounded statements
            }
        }
        while (repositories.maintenance().promoteDue(PROMOTE_BATCH) == PROMOTE_BATCH) {
            // a large backlog of due jobs: keep going in bounded statements
        }
        long folded = repositories.stats().squeeze();
        repositories.workflows().squeeze();
        // after the squeeze, which stores the workflows' states it looks at
        while (compensations.start(COMPENSATIONS_PER_BATCH) == COMPENSATIONS_PER_BATCH) {
            // many workflows failed at once: keep going in bounded transactions
        }
        repositories.batches().squeeze();
        // the heap grows only with traffic, which leaves counter deltas: an idle node looks only now and then
        if (folded > 0 || passes.getAndIncrement() % IDLE_STATISTICS_CHECK_EVERY == 0) {
            repositories.maintenance().refreshStatisticsIfGrown();
        }
    }

    /**
     * Deletes dead jobs and history rows past their retention, and expired dedup windows, one bounded batch
     * per statement.
     * @return how many rows were deleted
     */
    public long deleteOldRows() {
        long deleted = 0;
        int batch;
        do {
            batch = repositories.maintenance().expireDead(retention.dead(), retention.batchSize());
            deleted += batch;
        }
        while (batch == retention.batchSize());
        if (retention.history() != null) {
            do {
                batch = repositories.history().expire(retention.history(), retention.batchSize());
                deleted += batch;
            }
            while (batch == retention.batchSize());
        }
        do {
            batch = repositories.durable().expire(retention.batchSize());
            deleted += batch;
        }
        while (batch == retention.batchSize());
        do {
            batch = repositories.workflows().expire(retention.workflows(), retention.batchSize());
            deleted += batch;
        }
        while (batch == retention.batchSize());
        do {
            batch = repositories.batches().expire(retention.batches(), retention.batchSize());
            deleted += batch;
        }
        while (batch == retention.batchSize());
        do {
            batch = repositories.maintenance().expireDedupWindows(retention.batchSize());
            deleted += batch;
        }
        while (batch == retention.batchSize());
        return deleted;
    }

}
