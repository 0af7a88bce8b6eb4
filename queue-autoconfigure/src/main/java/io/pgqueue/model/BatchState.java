package io.pgqueue.model;

import java.util.Locale;

/**
 * Where a batch is: {@link #OPEN} while members may be added (until it is sealed), {@link #RUNNING} while a
 * member has not finished, then {@link #SUCCEEDED} when every member completed or {@link #FAILED} when some
 * ended dead or cancelled (retrying a dead member makes it run again), or {@link #CANCELLED}.
 */
public enum BatchState {

    OPEN, RUNNING, SUCCEEDED, FAILED, CANCELLED;

    /** The value in the {@code state} column, tags and the endpoint's keys. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether every member finished, or the batch was cancelled. */
    public boolean isFinished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }

    public static BatchState of(String value) {
        for (BatchState state : values()) {
            if (state.value().equals(value)) {
                return state;
            }
        }
        throw new IllegalArgumentException("Unknown batch state '" + value
                + "': use one of open, running, succeeded, failed, cancelled");
    }
}
