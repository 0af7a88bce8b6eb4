package io.pgqueue.internal.routing;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.admin.WorkflowsAdmin;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.model.WorkflowState;

/**
 * Workflows across databases: an id goes to the database of its block; listings merge, newest first.
 */
final class RoutingWorkflowsAdmin implements WorkflowsAdmin {

    private final AdminRoutes routes;

    RoutingWorkflowsAdmin(AdminRoutes routes) {
        this.routes = routes;
    }

    @Override
    public Optional<WorkflowInfo> workflow(long workflowId) {
        return routes.id(workflowId).workflow(workflowId);
    }

    @Override
    public Map<WorkflowState, Long> workflowsByState() {
        return routes.sum(QueueAdmin::workflowsByState, new EnumMap<>(WorkflowState.class));
    }

    /** Newest first across databases: ids order them, every database's block above the one before. */
    @Override
    public List<WorkflowInfo> workflows(WorkflowQuery query) {
        return AdminRoutes.newest(routes.all((admin) -> admin.workflows(query)), WorkflowInfo::id, query.limit());
    }

    @Override
    public List<WorkflowNodeInfo> workflowNodes(long workflowId, long afterJobId, int limit) {
        return routes.id(workflowId).workflowNodes(workflowId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelWorkflow(long workflowId) {
        return routes.id(workflowId).cancelWorkflow(workflowId);
    }
}
