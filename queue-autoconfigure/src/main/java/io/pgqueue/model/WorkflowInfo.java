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
 * @param compensation the compensation of a failed workflow whose completed nodes declared one, once started;
 * else null
 */
public record WorkflowInfo(long id, String name, WorkflowState state, WorkflowCounts counts, Instant createdAt,
        @Nullable Instant finishedAt, @Nullable Compensation compensation) {

    public WorkflowInfo(long id, String name, WorkflowState state, WorkflowCounts counts, Instant createdAt,
            @Nullable Instant finishedAt) {
        this(id, name, state, counts, createdAt, finishedAt, null);
    }

    /**
     * A failed workflow's compensation: a workflow of its own.
     *
     * @param workflowId the compensating workflow's id (look at its nodes with {@code QueueAdmin.workflowNodes})
     * @param status {@code compensating} while it runs, {@code compensated} when every compensation completed,
     * {@code compensation-failed} when one went dead or it was cancelled
     */
    public record Compensation(long workflowId, String status) {
    }
}
