package io.pgqueue.admin;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.model.WorkflowState;

/**
 * Workflows: look one up, list them, page through their nodes, cancel one.
 * One role of {@link QueueAdmin}, which is all of them; inject the role a class needs.
 */
public interface WorkflowsAdmin {

    /** A workflow with its state and counts (read from its aggregate, whatever its size), if it exists. */
    Optional<WorkflowInfo> workflow(long workflowId);

    /** How many workflows are in each state (as stored by the last counter squeeze), for gauges. */
    Map<WorkflowState, Long> workflowsByState();

    /** Workflows by name and state, newest first, keyset-paged. */
    List<WorkflowInfo> workflows(WorkflowQuery query);

    /** A page of a workflow's nodes (with their states and parents) in job id order, after the given job id. */
    List<WorkflowNodeInfo> workflowNodes(long workflowId, long afterJobId, int limit);

    /**
     * Cancels a workflow: its waiting, scheduled and ready nodes finish as cancelled, and the cancellation of its
     * running LEASE nodes is requested (as {@link JobsAdmin#cancel(long)}); dead nodes stay dead. Waiting nodes go
     * first, so that no parent's cancellation releases a dependant (under {@code RUN}) before it is cancelled.
     * An unknown workflow gives an all-zero result.
     */
    BulkCancelResult cancelWorkflow(long workflowId);
}
