package io.pgqueue.internal.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.admin.WorkflowsAdmin;
import io.pgqueue.internal.persistence.JobAdminPort;
import io.pgqueue.internal.persistence.WorkflowRepository;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.model.WorkflowState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Workflows: lookups, listings (from the listings' database, a replica when one is configured), cancellation.
 */
final class JdbcWorkflowsAdmin implements WorkflowsAdmin {

    private static final Log logger = LogFactory.getLog(QueueAdmin.class);

    /** Nodes cancelled per statement when a workflow is cancelled. */
    private static final int WORKFLOW_CANCEL_CHUNK = 10_000;

    private final WorkflowRepository workflows;

    /** Where listings and node pages are read: the primary's repository, or a replica's. */
    private final WorkflowRepository listings;

    private final JobAdminPort jobs;

    private final Wakeups wakeups;

    JdbcWorkflowsAdmin(WorkflowRepository workflows, WorkflowRepository listings, JobAdminPort jobs, Wakeups wakeups) {
        this.workflows = workflows;
        this.listings = listings;
        this.jobs = jobs;
        this.wakeups = wakeups;
    }

    @Override
    public Optional<WorkflowInfo> workflow(long workflowId) {
        return Optional.ofNullable(workflows.workflow(workflowId));
    }

    @Override
    public Map<WorkflowState, Long> workflowsByState() {
        return CountsByState.of(WorkflowState.class, workflows.countsByState(), WorkflowState::of);
    }

    @Override
    public List<WorkflowInfo> workflows(WorkflowQuery query) {
        return listings.workflows(query);
    }

    @Override
    public List<WorkflowNodeInfo> workflowNodes(long workflowId, long afterJobId, int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be between 1 and 10000: " + limit);
        }
        return listings.nodePage(workflowId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelWorkflow(long workflowId) {
        List<Long> ids = workflows.unfinishedJobIds(workflowId);
        long cancelled = 0;
        long requested = 0;
        List<Long> announced = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += WORKFLOW_CANCEL_CHUNK) {
            long[] chunk = ids.subList(from, Math.min(ids.size(), from + WORKFLOW_CANCEL_CHUNK)).stream()
                .mapToLong(Long::longValue)
                .toArray();
            JobAdminPort.Cancellation cancellation = jobs.cancel(chunk);
            cancelled += cancellation.cancelled().size();
            requested += cancellation.requested().size();
            announced.addAll(cancellation.requested());
        }
        wakeups.cancelRequested(announced);
        logger.info("Workflow " + workflowId + " cancelled: " + cancelled + " node(s) cancelled, " + requested
                + " running node(s) asked to cancel");
        return new BulkCancelResult(cancelled, requested, ids.size() - cancelled - requested);
    }
}
