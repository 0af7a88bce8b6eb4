package io.pgqueue.model;

import org.jspecify.annotations.Nullable;

/**
 * A live member of a batch (members that finished are counted, and kept in the history when it is on).
 *
 * @param jobId its job
 * @param queue its queue
 * @param state its state
 * @param attempts attempts started
 * @param error the first line of its last error, or null
 */
public record BatchMemberInfo(long jobId, String queue, JobState state, int attempts, @Nullable String error) {
}
