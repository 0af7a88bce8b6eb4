package io.pgqueue.listener.error;

/**
 * A job whose attempt failed, as the error handler sees it.
 *
 * @param id job id
 * @param queue queue name
 * @param attempt the attempt that failed, starting at 1
 * @param maxAttempts attempts allowed
 */
public record FailedJob(long id, String queue, int attempt, int maxAttempts) {
}
