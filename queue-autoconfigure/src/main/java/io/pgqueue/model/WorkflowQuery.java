package io.pgqueue.model;

import org.jspecify.annotations.Nullable;

/**
 * Which workflows to list, newest first, keyset-paged: pass the last id of a page as {@code beforeId} for the
 * next.
 *
 * @param name only workflows of this name, or null
 * @param state only workflows in this state, or null
 * @param beforeId only workflows with a lower id, or null for the newest
 * @param limit at most this many (1 to 1,000)
 */
public record WorkflowQuery(@Nullable String name, @Nullable WorkflowState state, @Nullable Long beforeId, int limit) {

    public WorkflowQuery {
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be between 1 and 1000: " + limit);
        }
    }

    /** The newest workflows, any name and state. */
    public static WorkflowQuery newest(int limit) {
        return new WorkflowQuery(null, null, null, limit);
    }
}
