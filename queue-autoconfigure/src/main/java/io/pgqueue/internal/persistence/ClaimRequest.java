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
 */
public record ClaimRequest(String queue, int limit, int defaultMaxAttempts, boolean groupFailuresBlock,
        @Nullable UUID node, long leaseMillis) {

    public ClaimRequest withLimit(int newLimit) {
        return new ClaimRequest(queue, newLimit, defaultMaxAttempts, groupFailuresBlock, node, leaseMillis);
    }
}
