package io.pgqueue.model;

/**
 * No job with the id asked for: it never existed, or it finished and is not (or no longer) in the history.
 */
public class NoSuchJobException extends IllegalArgumentException {

    private final long jobId;

    public NoSuchJobException(long jobId) {
        super("No job with id " + jobId + " (finished jobs are kept only while pgqueue.history.enabled and "
                + "within pgqueue.history.retention)");
        this.jobId = jobId;
    }

    public long jobId() {
        return jobId;
    }
}
