package io.pgqueue.listener;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a listener to put its job off: the job runs again after the delay, and this attempt does not
 * count (the same as {@link JobContext#snooze(Duration)}). In TRANSACTIONAL mode the handler's transaction
 * rolls back.
 */
public class SnoozeException extends RuntimeException {

    private final Duration delay;

    public SnoozeException(Duration delay) {
        super("Snoozed for " + Objects.requireNonNull(delay, "delay"), null, false, false);
        if (delay.isNegative()) {
            throw new IllegalArgumentException("snooze delay must not be negative: " + delay);
        }
        this.delay = delay;
    }

    public Duration delay() {
        return delay;
    }
}
