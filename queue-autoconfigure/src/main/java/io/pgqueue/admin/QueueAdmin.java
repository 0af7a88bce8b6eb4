package io.pgqueue.admin;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.pgqueue.QueueNames;
import io.pgqueue.store.AdminStore;
import io.pgqueue.store.DeadJob;
import io.pgqueue.store.MaintenanceStore;
import io.pgqueue.store.NodeInfo;
import io.pgqueue.store.QueueCounts;
import io.pgqueue.store.ScheduleRow;
import io.pgqueue.store.ScheduleStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Operating queues from Java: what the Actuator endpoint offers over HTTP. Pausing is stored in the
 * database and honoured by every node's next claim.
 */
public class QueueAdmin {

    private static final Log logger = LogFactory.getLog(QueueAdmin.class);

    /** Dead jobs deleted per statement by {@link #purgeDead(String)}: no long-running delete. */
    static final int PURGE_BATCH = 10_000;

    private final AdminStore store;

    private final MaintenanceStore maintenance;

    private final ScheduleStore schedules;

    public QueueAdmin(AdminStore store, MaintenanceStore maintenance, ScheduleStore schedules) {
        this.store = store;
        this.maintenance = maintenance;
        this.schedules = schedules;
    }

    /** Every recurring job with its next and last tick. */
    public List<ScheduleRow> schedules() {
        return schedules.all();
    }

    /** Removes a recurring job that no node declares any more; returns whether it existed. */
    public boolean removeSchedule(String name) {
        return schedules.delete(name);
    }

    /** Every queue the counters know, with counts, lag and pause state. */
    public List<QueueStats> queues() {
        List<QueueCounts> counts = store.counts();
        Map<String, Duration> lags = store.lags();
        Set<String> paused = store.pausedQueues();
        return counts.stream().map((c) -> new QueueStats(c, lags.get(c.queue()), paused.contains(c.queue()))).toList();
    }

    public Optional<QueueStats> queue(String queue) {
        QueueNames.validate(queue);
        return queues().stream().filter((stats) -> stats.queue().equals(queue)).findFirst();
    }

    public void pause(String queue) {
        store.setPaused(QueueNames.validate(queue), true);
        logger.info("Queue '" + queue + "' paused");
    }

    public void resume(String queue) {
        store.setPaused(QueueNames.validate(queue), false);
        logger.info("Queue '" + queue + "' resumed");
    }

    public boolean isPaused(String queue) {
        return store.pausedQueues().contains(queue);
    }

    public Set<String> pausedQueues() {
        return store.pausedQueues();
    }

    /** Dead jobs of a queue, newest first. */
    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        if (offset < 0 || limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("offset must be >= 0 and limit between 1 and 1000");
        }
        return store.deadJobs(QueueNames.validate(queue), offset, limit);
    }

    /** Makes one dead job ready again with fresh attempts; returns whether it was dead. */
    public boolean retryDead(String queue, long jobId) {
        return store.retryDead(QueueNames.validate(queue), jobId) > 0;
    }

    /** Makes every dead job of the queue ready again; returns how many. */
    public int retryAllDead(String queue) {
        return store.retryDead(QueueNames.validate(queue), null);
    }

    /** Deletes one dead job; returns whether it existed. */
    public boolean purgeDead(String queue, long jobId) {
        return store.purgeDead(QueueNames.validate(queue), jobId, 1) > 0;
    }

    /** Deletes every dead job of the queue in bounded batches; returns how many. */
    public long purgeDead(String queue) {
        QueueNames.validate(queue);
        long purged = 0;
        int batch;
        do {
            batch = store.purgeDead(queue, null, PURGE_BATCH);
            purged += batch;
        }
        while (batch == PURGE_BATCH);
        return purged;
    }

    public List<NodeInfo> nodes() {
        return store.nodes();
    }

    public @Nullable String schemaVersion() {
        return store.schemaVersion();
    }

    /**
     * Recomputes the state counts from the job table and repairs any drift (a full scan of the job table).
     * @return the drift found per queue, empty when the counters were exact
     */
    public List<QueueCounts> reconcile() {
        maintenance.squeeze();
        List<QueueCounts> drift = maintenance.reconcile();
        drift.forEach((d) -> logger.warn("Counter drift repaired for queue '" + d.queue() + "': scheduled "
                + d.scheduled() + ", ready " + d.ready() + ", running " + d.running() + ", dead " + d.dead()));
        maintenance.squeeze();
        return drift;
    }
}
