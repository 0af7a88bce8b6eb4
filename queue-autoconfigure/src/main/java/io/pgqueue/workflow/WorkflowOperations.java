package io.pgqueue.workflow;

/**
 * Submitting workflows: graphs of jobs that wait for other jobs. A submission joins the caller's transaction
 * (a Spring-managed one on pgqueue's DataSource): rolled back, nothing of it exists; committed, its nodes
 * without parents are ready (or scheduled) and the others wait until their parents finished.
 */
public interface WorkflowOperations {

    /**
     * Submits the workflow.
     *
     * @throws InvalidWorkflowException when the graph cannot run (see {@link Workflow.Builder#build()}); nothing
     * is stored
     */
    WorkflowSubmission submit(Workflow workflow);
}
