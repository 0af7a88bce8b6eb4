package io.pgqueue.model;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One fairness key of a fair queue, as {@code QueueAdmin.fairnessKeys} reads it.
 *
 * @param queue the queue
 * @param key the key
 * @param weight the weight set at run time, or null when the configured (or default) weight applies
 * @param paused whether the key's jobs are held back (the queue's other keys keep running)
 * @param active whether the key has (or just had) ready or running jobs
 * @param ready the key's ready jobs, counted up to {@link #READY_COUNT_LIMIT} (a larger backlog shows as that)
 * @param running the key's running jobs
 * @param nextReadySince since when the job next in the key's claim order has been ready to run, or null when the key
 * has no ready job: how long the key has been waiting
 * @param served the key's share of the claims so far, as its pass (claims divided by weight): keys under
 * contention stay close to each other
 */
public record FairnessKeyInfo(String queue, String key, @Nullable Double weight, boolean paused, boolean active,
        long ready, long running, @Nullable Instant nextReadySince, double served) {

    /** Ready jobs are counted up to this many per key (an index range, never a scan of the queue). */
    public static final long READY_COUNT_LIMIT = 10_000;
}
