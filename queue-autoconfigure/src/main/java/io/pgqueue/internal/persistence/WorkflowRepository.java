package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.pgqueue.model.JobState;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import org.jspecify.annotations.Nullable;

/**
 * The workflow tables: {@code workflow}, {@code workflow_node}, {@code job_dependency} and the per-workflow
 * counts. Submitting inserts the nodes' jobs ({@link Transition#SUBMIT}); releasing and cancelling dependants
 * happens in the statements that finish their parents ({@link WorkflowCascade}).
 */
public interface WorkflowRepository {

    /** A node to insert: its job, its pre-allocated job id, and how many of its parents have not finished. */
    record NewNode(long jobId, String name, String queue, NewJob job, int pendingParents, List<String> parents) {
    }

    /** An edge to insert: the child waits for the parent. */
    record NewEdge(long parentId, long childId, String policy) {
    }

    /** A node as stored: its job and, once finished, how it ended (else its job's live state, or null if gone). */
    record StoredNode(String name, long jobId, @Nullable JobState state) {
    }

    /** What a handler's context needs of its node. */
    record NodeOfJob(long workflowId, String workflowName, String node, List<String> parents) {
    }

    /** A workflow locked for an addition: its name and the policy of edges that name none. */
    record LockedWorkflow(String name, String defaultPolicy) {
    }

    /** Inserts the workflow's row; returns its id. */
    long create(String name, String defaultPolicy);

    /**
     * Runs the work in a transaction on pgqueue's DataSource: the caller's, when it has one there (a submission
     * joins it), else a new one.
     */
    <T> T inTransaction(java.util.function.Supplier<T> work);

    /** Takes job ids for nodes about to be inserted (so that edges can name them in the same statement). */
    long[] allocateJobIds(int count);

    /**
     * {@link Transition#SUBMIT}: inserts the nodes' jobs (waiting when they have pending parents), their node
     * rows and the edges, and counts them; returns the queues that got ready jobs.
     */
    List<String> insertNodes(long workflowId, List<NewNode> nodes, List<NewEdge> edges);

    /** A node's compensating job, as declared at submit: its payload written already. */
    record NewCompensation(String node, String queue, String payloadJson, @Nullable String payloadType) {
    }

    /** Records the compensations nodes declared (only workflows whose nodes declare one call this). */
    void insertCompensations(long workflowId, List<NewCompensation> compensations);

    /**
     * Locks, in the caller's transaction, up to {@code limit} workflows whose compensation is to be started: failed
     * or cancelled, nothing active or waiting (counted with the deltas not folded yet), with compensations declared
     * and not started. Locked rows other transactions hold are skipped.
     */
    List<Long> lockCompensationsDue(int limit);

    /** A node of a failed workflow, for its compensation: its parents, and its compensation if it completed. */
    record CompensableNode(String name, List<String> parents, @Nullable NewCompensation compensation) {
    }

    /** The nodes of a workflow, each with its compensation when it completed and declared one. */
    List<CompensableNode> compensableNodes(long workflowId);

    /** The workflow's name. */
    String name(long workflowId);

    /** Marks the workflow's compensations started, and records the workflow that runs them (null: none to run). */
    void compensationStarted(long workflowId, @Nullable Long compensationId);

    /** Locks the workflow's row until the end of the transaction (additions are serialised), or null. */
    @Nullable LockedWorkflow lock(long workflowId);

    /** The named nodes that exist, with their states. */
    Map<String, StoredNode> nodes(long workflowId, Collection<String> names);

    /** The workflow node the job is, or null for a plain job. */
    @Nullable NodeOfJob nodeOfJob(long jobId);

    /** The outputs (JSON) of the named nodes that completed with one. */
    Map<String, String> outputs(long workflowId, Collection<String> names);

    /** The workflow, its counts read from the aggregate, or null. */
    @Nullable WorkflowInfo workflow(long id);

    /** Workflows by name and state, newest first, keyset-paged. */
    List<WorkflowInfo> workflows(WorkflowQuery query);

    /** A page of the workflow's nodes in job id order, after the given job id. */
    List<WorkflowNodeInfo> nodePage(long workflowId, long afterJobId, int limit);

    /** The ids of the workflow's jobs that have not finished and are not dead, waiting ones first. */
    List<Long> unfinishedJobIds(long workflowId);

    /** Workflows per stored state (for gauges). */
    Map<String, Long> countsByState();

    /** Folds the per-workflow deltas and stores the state of the workflows they changed; returns rows folded. */
    long squeeze();

    /** Deletes finished workflows (and their nodes and counts) past retention, a bounded batch; returns how many. */
    int expire(Duration retention, int limit);
}
