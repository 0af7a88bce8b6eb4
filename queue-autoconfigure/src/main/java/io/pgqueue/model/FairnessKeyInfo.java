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
 * @param handle what stands for the key where keys are masked (they are often tenant or customer ids):
 * {@code ~} and 16 hex digits of a hash of the key, its queue and the database cluster's system identifier. The
 * same on every node, it cannot be turned back into the key without the database; every operation on a key
 * ({@code QueueAdmin.pauseFairnessKey} and the rest) accepts it in place of the key
 */
public record FairnessKeyInfo(String queue, String key, @Nullable Double weight, boolean paused, boolean active,
        long ready, long running, @Nullable Instant nextReadySince, double served, String handle) {

    /** Whether a name given for a key is a {@link #handle()}: {@code ~} (safe in a URL path) and 16 hex digits. */
    public static boolean isHandle(String key) {
        return key.length() == 17 && key.charAt(0) == '~' && key.substring(1).chars()
            .allMatch((c) -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }

    /** This key as a masked listing shows it: its handle in place of the key. */
    public FairnessKeyInfo masked() {
        return new FairnessKeyInfo(queue, handle, weight, paused, active, ready, running, nextReadySince, served,
                handle);
    }

    /** Ready jobs are counted up to this many per key (an index range, never a scan of the queue). */
    public static final long READY_COUNT_LIMIT = 10_000;
}
