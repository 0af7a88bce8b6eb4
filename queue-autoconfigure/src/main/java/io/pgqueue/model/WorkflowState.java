package io.pgqueue.model;

import java.util.Locale;

/**
 * Where a workflow is, derived from its counts: {@link #RUNNING} while a node waits or is active and none is
 * dead, {@link #FAILED} while a node is dead and none is active (retrying it resumes the workflow), else
 * {@link #COMPLETED} when every node completed and {@link #CANCELLED} when some were cancelled.
 */
public enum WorkflowState {

    RUNNING, FAILED, COMPLETED, CANCELLED;

    /** The value in the {@code state} column, tags and the endpoint's keys. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether nothing of the workflow can run any more. */
    public boolean isFinished() {
        return this == COMPLETED || this == CANCELLED;
    }

    public static WorkflowState of(String value) {
        for (WorkflowState state : values()) {
            if (state.value().equals(value)) {
                return state;
            }
        }
        throw new IllegalArgumentException("Unknown workflow state '" + value
                + "': use one of running, failed, completed, cancelled");
    }
}
