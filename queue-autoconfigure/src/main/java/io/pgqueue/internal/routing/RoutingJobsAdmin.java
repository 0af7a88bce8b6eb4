package io.pgqueue.internal.routing;

import java.util.Collection;
import java.util.List;

import io.pgqueue.admin.JobsAdmin;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.CancelResult;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;

/**
 * Jobs across databases: a job id goes to the database of its block, a queue to its database.
 */
final class RoutingJobsAdmin implements JobsAdmin {

    private final AdminRoutes routes;

    RoutingJobsAdmin(AdminRoutes routes) {
        this.routes = routes;
    }

    @Override
    public JobInfo job(long jobId) {
        return routes.id(jobId).job(jobId);
    }

    @Override
    public JobPage jobs(JobQuery query) {
        return routes.of(query.queue()).jobs(query);
    }

    @Override
    public CancelResult cancel(long jobId) {
        return routes.id(jobId).cancel(jobId);
    }

    @Override
    public BulkCancelResult cancel(JobQuery query) {
        return routes.of(query.queue()).cancel(query);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        return routes.of(queue).deadJobs(queue, offset, limit);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content) {
        return routes.of(queue).deadJobs(queue, offset, limit, content);
    }

    @Override
    public boolean retryDead(String queue, long jobId) {
        return routes.of(queue).retryDead(queue, jobId);
    }

    @Override
    public int retryDead(String queue, Collection<Long> jobIds) {
        return routes.of(queue).retryDead(queue, jobIds);
    }

    @Override
    public int retryAllDead(String queue) {
        return routes.of(queue).retryAllDead(queue);
    }

    @Override
    public long retryDead(JobQuery query) {
        return routes.of(query.queue()).retryDead(query);
    }

    @Override
    public boolean purgeDead(String queue, long jobId) {
        return routes.of(queue).purgeDead(queue, jobId);
    }

    @Override
    public int purgeDead(String queue, Collection<Long> jobIds) {
        return routes.of(queue).purgeDead(queue, jobIds);
    }

    @Override
    public long purgeDead(String queue) {
        return routes.of(queue).purgeDead(queue);
    }

    @Override
    public long purgeDead(JobQuery query) {
        return routes.of(query.queue()).purgeDead(query);
    }
}
