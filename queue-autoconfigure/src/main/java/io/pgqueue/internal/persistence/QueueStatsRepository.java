package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pgqueue.model.QueueCounts;

/**
 * Queue-level state: the counters (read, folded, reconciled), lag, and the cluster-wide pause flag. Reads
 * touch the counter tables and index ranges only, never a scan of the job table (reconcile aside).
 */
public interface QueueStatsRepository {

    /** Counts of every queue the counters know, in name order. */
    List<QueueCounts> counts();

    /** Age of the oldest ready job per queue; queues without ready jobs have no entry. */
    Map<String, Duration> lags();

    void setPaused(String queue, boolean paused);

    Set<String> pausedQueues();

    /** Folds the counter deltas; returns how many delta rows were folded (0 when another node held the lock). */
    long squeeze();

    /** Repairs counter drift and returns it, one entry per queue that drifted (state counts only). */
    List<QueueCounts> reconcile();
}
