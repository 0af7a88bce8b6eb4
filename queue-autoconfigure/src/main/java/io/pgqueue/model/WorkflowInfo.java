package io.pgqueue.model;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A workflow as an operator sees it.
 *
 * @param id its id
 * @param name its name (not unique: list by name to see every run)
 * @param state its state, from its counts
 * @param counts its nodes by standing
 * @param createdAt when it was submitted
 * @param finishedAt when it completed or was cancelled as a whole, or null
 */
public record WorkflowInfo(long id, String name, WorkflowState state, WorkflowCounts counts, Instant createdAt,
        @Nullable Instant finishedAt) {
}
