package io.pgqueue.workflow;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a handler sees of the workflow its job is a node of ({@code JobContext.workflow()}): the parents'
 * outputs, which parents failed, and the means to add nodes (a dynamic fan-out).
 */
public interface WorkflowContext {

    /** The workflow's id. */
    long id();

    /** The workflow's name. */
    String name();

    /** This job's node name. */
    String node();

    /** This node's parents' names. */
    List<String> parents();

    /**
     * The output (the handler's return value) of a parent that completed, read as the type; empty when it
     * returned nothing or did not complete (a failed parent under {@link DependencyPolicy#RUN}).
     *
     * @throws IllegalArgumentException when the name is not a parent of this node
     */
    <T> Optional<T> parentOutput(String parent, Class<T> type);

    /** The outputs of every parent that completed with one, by parent name (a fan-in reads them all). */
    <T> Map<String, T> parentOutputs(Class<T> type);

    /** The parents that ended dead or cancelled (possible under {@link DependencyPolicy#RUN}). */
    List<String> failedParents();

    /**
     * Adds nodes to this workflow. Their parents may be this node, nodes added in the same call, and nodes
     * that already completed; a node whose name exists is left as it is (so a retried splitter does not add
     * its children twice). In TRANSACTIONAL mode the additions commit with this job's acknowledgement; in
     * LEASE mode at once.
     *
     * @return the job ids of the nodes this call added, by name
     * @throws InvalidWorkflowException when a parent is none of the above, or the nodes form a cycle
     */
    Map<String, Long> add(List<WorkflowNode> nodes);

    /** As {@link #add(List)}. */
    default Map<String, Long> add(WorkflowNode... nodes) {
        return add(List.of(nodes));
    }
}
