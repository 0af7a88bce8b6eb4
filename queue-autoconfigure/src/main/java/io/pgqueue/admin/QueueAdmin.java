package io.pgqueue.admin;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.pgqueue.QueueNames;
import io.pgqueue.internal.lifecycle.Repositories;
import io.pgqueue.internal.lifecycle.ScheduleRecord;
import io.pgqueue.schedule.ScheduleInfo;
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

    private final Repositories repositories;

    public QueueAdmin(Repositories repositories) {
        this.repositories = repositories;
    }

    /** Every recurring job with its next and last tick. */
    public List<ScheduleInfo> schedules() {
        return repositories.schedules().all().stream().map(ScheduleRecord::info).toList();
    }

    /** Removes a recurring job that no node declares any more; returns whether it existed. */
    public boolean removeSchedule(String name) {
        return repositories.schedules().delete(name);
    }

    /** Every queue the counters know, with counts, lag and pause state. */
    public List<QueueStats> queues() {
        List<QueueCounts> counts = repositories.stats().counts();
        Map<String, Duration> lags = repositories.stats().lags();
        Set<String> paused = repositories.stats().pausedQueues();
        return counts.stream().map((c) -> new QueueStats(c, lags.get(c.queue()), paused.contains(c.queue()))).toList();
    }

    public Optional<QueueStats> queue(String queue) {
        QueueNames.validate(queue);
        return queues().stream().filter((stats) -> stats.queue().equals(queue)).findFirst();
    }

    public void pause(String queue) {
        repositories.stats().setPaused(QueueNames.validate(queue), true);
        logger.info("Queue '" + queue + "' paused");
    }

    public void resume(String queue) {
        repositories.stats().setPaused(QueueNames.validate(queue), false);
        logger.info("Queue '" + queue + "' resumed");
    }

    public boolean isPaused(String queue) {
        return repositories.stats().pausedQueues().contains(queue);
    }

    public Set<String> pausedQueues() {
        return repositories.stats().pausedQueues();
    }

    /** Dead jobs of a queue, newest first. */
    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        if (offset < 0 || limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("offset must be >= 0 and limit between 1 and 1000");
        }
        return repositories.jobs().deadJobs(QueueNames.validate(queue), offset, limit);
    }

    /** Makes one dead job ready again with fresh attempts; returns whether it was dead. */
    public boolean retryDead(String queue, long jobId) {
        return repositories.jobs().retryDead(QueueNames.validate(queue), jobId) > 0;
    }

    /** Makes every dead job of the queue ready again; returns how many. */
    public int retryAllDead(String queue) {
        return repositories.jobs().retryDead(QueueNames.validate(queue), null);
    }

    /** Deletes one dead job; returns whether it existed. */
    public boolean purgeDead(String queue, long jobId) {
        return repositories.jobs().purgeDead(QueueNames.validate(queue), jobId, 1) > 0;
    }

    /** Deletes every dead job of the queue in bounded batches; returns how many. */
    public long purgeDead(String queue) {
        QueueNames.validate(queue);
        long purged = 0;
        int batch;
        do {
            batch = repositories.jobs().purgeDead(queue, null, PURGE_BATCH);
            purged += batch;
        }
        while (batch == PURGE_BATCH);
        return purged;
    }

    /** Every node of the cluster, oldest first. */
    public List<ClusterNode> nodes() {
        return repositories.nodes().nodes();
    }

    /** pgqueue's schema version, or null when pgqueue did not migrate the schema. */
    public @Nullable String schemaVersion() {
        return repositories.schemaInfo().version();
    }

    /**
     * Recomputes the state counts from the job table and repairs any drift (a full scan of the job table).
     * @return the drift found per queue, empty when the counters were exact
     */
    public List<QueueCounts> reconcile() {
        repositories.stats().squeeze();
        List<QueueCounts> drift = repositories.stats().reconcile();
        drift.forEach((d) -> logger.warn("Counter drift repaired for queue '" + d.queue() + "': scheduled "
                + d.scheduled() + ", ready " + d.ready() + ", running " + d.running() + ", dead " + d.dead()));
        repositories.stats().squeeze();
        return drift;
    }
}
