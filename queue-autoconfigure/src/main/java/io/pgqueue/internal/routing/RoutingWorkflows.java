package io.pgqueue.internal.routing;

import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowOperations;
import io.pgqueue.workflow.WorkflowSubmission;

/**
 * The application's {@link WorkflowOperations} when queues live in several databases: a workflow is
 * submitted to the database of its nodes' queues, which must all be the same one (each database's own
 * operations refuse a node elsewhere, and nothing is submitted).
 */
public final class RoutingWorkflows implements WorkflowOperations {

    private final DatabaseRouter<WorkflowOperations> router;

    public RoutingWorkflows(DatabaseRouter<WorkflowOperations> router) {
        this.router = router;
    }

    @Override
    public WorkflowSubmission submit(Workflow workflow) {
        DatabaseUnit<WorkflowOperations> unit = workflow.nodes().isEmpty() ? router.defaultUnit()
                : router.forSend(workflow.nodes().get(0).queue());
        return unit.service().submit(workflow);
    }
}
