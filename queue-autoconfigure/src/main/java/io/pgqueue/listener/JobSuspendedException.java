package io.pgqueue.listener;

import java.time.Duration;

/**
 * Ends a run that sleeps or waits ({@link JobContext#sleep}, {@link JobContext#awaitEvent},
 * {@link JobContext#awaitJob}): the job is parked without holding a worker, a thread or a connection, no attempt
 * is charged, and it runs again from the top when its wait ends, its completed steps returning their results.
 * Let it propagate. A handler that catches it parks all the same, and every later durable call of the run
 * throws it again, so that no code after the wait runs before the wait ended.
 */
public class JobSuspendedException extends SnoozeException {

    private final String reason;

    public JobSuspendedException(String reason, Duration recheckAfter) {
        super(recheckAfter);
        this.reason = reason;
    }

    /** What the job waits for, e.g. {@code sleep until 2026-12-01T10:00:00Z} or {@code event 'paid:42'}. */
    public String reason() {
        return reason;
    }

    @Override
    public String getMessage() {
        return "Job parked: waits for " + reason;
    }
}
