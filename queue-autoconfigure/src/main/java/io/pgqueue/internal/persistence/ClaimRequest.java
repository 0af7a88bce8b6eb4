package io.pgqueue.internal.persistence;

import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * What a container asks of a claim.
 *
 * @param queue the queue
 * @param limit most jobs to claim
 * @param defaultMaxAttempts attempts for jobs sent without their own, written into the claimed rows
 * @param groupFailuresBlock whether a failed job waiting for its retry holds back the later jobs of its group
 * @param node the claiming node (LEASE), or null for a TRANSACTIONAL claim
 * @param leaseMillis lease length (LEASE)
 * @param after where the previous claim stopped, for a claim that reads only past it and past any higher
 * priority, or null for a claim of the queue's first ready jobs
 */
public record ClaimRequest(String queue, int limit, int defaultMaxAttempts, boolean groupFailuresBlock,
        @Nullable UUID node, long leaseMillis, @Nullable ClaimCursor after) {

    public ClaimRequest(String queue, int limit, int defaultMaxAttempts, boolean groupFailuresBlock, @Nullable UUID node,
            long leaseMillis) {
        this(queue, limit, defaultMaxAttempts, groupFailuresBlock, node, leaseMillis, null);
    }

    public ClaimRequest withLimit(int newLimit) {
        return new ClaimRequest(queue, newLimit, defaultMaxAttempts, groupFailuresBlock, node, leaseMillis, after);
    }

    public ClaimRequest after(@Nullable ClaimCursor cursor) {
        return new ClaimRequest(queue, limit, defaultMaxAttempts, groupFailuresBlock, node, leaseMillis, cursor);
    }
}
