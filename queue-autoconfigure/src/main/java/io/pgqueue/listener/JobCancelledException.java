package io.pgqueue.listener;

/**
 * Thrown by {@link JobContext#checkCancelled()} when the job's cancellation was requested: a handler that
 * lets it propagate stops at once, and the job finishes as cancelled.
 */
public class JobCancelledException extends RuntimeException {

    public JobCancelledException(long jobId) {
        super("Job " + jobId + " was cancelled");
    }
}
