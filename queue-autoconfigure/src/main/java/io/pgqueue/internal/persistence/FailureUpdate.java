package io.pgqueue.internal.persistence;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What to write for a failed attempt.
 *
 * @param jobId the job
 * @param attempt the attempt that failed (its number, starting at 1)
 * @param maxAttempts the job's attempts as resolved when it was claimed
 * @param retryDelay delay before the next attempt, or null when the job goes dead
 * @param error message and bounded stack trace to keep in {@code last_error}
 * @param cascades the cascades the job's claim decided: a workflow's node's or a batch's member's failure
 * carries them (a plain job's does without them)
 */
public record FailureUpdate(long jobId, int attempt, int maxAttempts, @Nullable Duration retryDelay, String error,
        Cascades cascades) {

    /** A failure whose statement carries the cascades, whatever the job is. */
    public FailureUpdate(long jobId, int attempt, int maxAttempts, @Nullable Duration retryDelay, String error) {
        this(jobId, attempt, maxAttempts, retryDelay, error, Cascades.NODES_AND_MEMBERS);
    }

    public boolean dead() {
        return retryDelay == null;
    }
}
