package io.pgqueue.workflow;

import java.util.Map;

/**
 * A submitted workflow: its id, and the job id of each node (by name), as committed with the caller's
 * transaction.
 *
 * @param id the workflow's id
 * @param jobIds each node's job id, by node name, in the order the nodes were given
 */
public record WorkflowSubmission(long id, Map<String, Long> jobIds) {

    /** The job id of the named node. */
    public long jobId(String node) {
        Long id = jobIds.get(node);
        if (id == null) {
            throw new IllegalArgumentException("No node '" + node + "' in workflow " + this.id);
        }
        return id;
    }
}
