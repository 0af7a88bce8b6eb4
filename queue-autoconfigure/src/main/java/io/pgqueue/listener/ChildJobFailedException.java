package io.pgqueue.listener;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by {@link JobContext#awaitJob} when the awaited job did not complete: it went dead, or it ended without
 * a result (cancelled, purged or expired). Recorded like a step: the job's later runs get the same exception.
 */
public class ChildJobFailedException extends RuntimeException {

    private final long childId;

    private final String state;

    public ChildJobFailedException(long childId, String state, @Nullable String error) {
        super("Awaited job " + childId + " did not complete: " + state + ((error != null) ? " (" + error + ")" : ""));
        this.childId = childId;
        this.state = state;
    }

    public long childId() {
        return childId;
    }

    /** {@code dead}, or {@code gone} for a job that ended without a result (cancelled, purged, expired). */
    public String state() {
        return state;
    }
}
