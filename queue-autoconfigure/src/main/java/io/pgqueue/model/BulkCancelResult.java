package io.pgqueue.model;

/**
 * What cancelling the jobs matching a query did.
 *
 * @param cancelled jobs that had not started and finished as cancelled
 * @param cancelRequested running LEASE jobs whose cancellation was requested
 * @param skipped matching jobs left alone: dead ones, and ones running in a TRANSACTIONAL listener's
 * transaction
 */
public record BulkCancelResult(long cancelled, long cancelRequested, long skipped) {
}
