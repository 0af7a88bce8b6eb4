package io.pgqueue.admin;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.CancelResult;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.FairnessKeyCounts;
import io.pgqueue.model.FairnessKeyInfo;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobStep;
import io.pgqueue.model.JobWait;
import io.pgqueue.model.QueueCounts;
import io.pgqueue.model.QueueStats;
import io.pgqueue.model.ScheduleInfo;
import io.pgqueue.model.VacuumHold;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.model.WorkflowState;
import org.jspecify.annotations.Nullable;

/**
 * A {@link QueueAdmin} put together from its roles (eight): each call goes to the role that answers it. The one class
 * that forwards every call, so that an implementation or a decorator of one role needs no forwarding of the
 * others (pgqueue's own admin, and its routing admin for several databases, are made this way; so can an
 * application's admin that changes one role of pgqueue's and keeps the others).
 */
public final class ComposedQueueAdmin implements QueueAdmin {

    private final JobsAdmin jobsRole;

    private final QueuesAdmin queuesRole;

    private final SchedulesAdmin schedulesRole;

    private final WorkflowsAdmin workflowsRole;

    private final BatchesAdmin batchesRole;

    private final FairnessAdmin fairnessRole;

    private final ClusterAdmin clusterRole;

    private final DurableAdmin durableRole;

    public ComposedQueueAdmin(JobsAdmin jobs, QueuesAdmin queues, SchedulesAdmin schedules, WorkflowsAdmin workflows,
            BatchesAdmin batches, FairnessAdmin fairness, ClusterAdmin cluster, DurableAdmin durable) {
        this.durableRole = durable;
        this.jobsRole = jobs;
        this.queuesRole = queues;
        this.schedulesRole = schedules;
        this.workflowsRole = workflows;
        this.batchesRole = batches;
        this.fairnessRole = fairness;
        this.clusterRole = cluster;
    }

    @Override
    public JobInfo job(long jobId) {
        return jobsRole.job(jobId);
    }

    @Override
    public JobPage jobs(JobQuery query) {
        return jobsRole.jobs(query);
    }

    @Override
    public CancelResult cancel(long jobId) {
        return jobsRole.cancel(jobId);
    }

    @Override
    public BulkCancelResult cancel(JobQuery query) {
        return jobsRole.cancel(query);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        return jobsRole.deadJobs(queue, offset, limit);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content) {
        return jobsRole.deadJobs(queue, offset, limit, content);
    }

    @Override
    public boolean retryDead(String queue, long jobId) {
        return jobsRole.retryDead(queue, jobId);
    }

    @Override
    public int retryDead(String queue, Collection<Long> jobIds) {
        return jobsRole.retryDead(queue, jobIds);
    }

    @Override
    public int retryAllDead(String queue) {
        return jobsRole.retryAllDead(queue);
    }

    @Override
    public long retryDead(JobQuery query) {
        return jobsRole.retryDead(query);
    }

    @Override
    public boolean purgeDead(String queue, long jobId) {
        return jobsRole.purgeDead(queue, jobId);
    }

    @Override
    public int purgeDead(String queue, Collection<Long> jobIds) {
        return jobsRole.purgeDead(queue, jobIds);
    }

    @Override
    public long purgeDead(String queue) {
        return jobsRole.purgeDead(queue);
    }

    @Override
    public long purgeDead(JobQuery query) {
        return jobsRole.purgeDead(query);
    }

    @Override
    public List<QueueStats> queues() {
        return queuesRole.queues();
    }

    @Override
    public Optional<QueueStats> queue(String queue) {
        return queuesRole.queue(queue);
    }

    @Override
    public void pause(String queue) {
        queuesRole.pause(queue);
    }

    @Override
    public void resume(String queue) {
        queuesRole.resume(queue);
    }

    @Override
    public boolean isPaused(String queue) {
        return queuesRole.isPaused(queue);
    }

    @Override
    public Set<String> pausedQueues() {
        return queuesRole.pausedQueues();
    }

    @Override
    public List<QueueCounts> reconcile() {
        return queuesRole.reconcile();
    }

    @Override
    public List<ScheduleInfo> schedules() {
        return schedulesRole.schedules();
    }

    @Override
    public boolean removeSchedule(String name) {
        return schedulesRole.removeSchedule(name);
    }

    @Override
    public void pauseSchedule(String name) {
        schedulesRole.pauseSchedule(name);
    }

    @Override
    public void resumeSchedule(String name) {
        schedulesRole.resumeSchedule(name);
    }

    @Override
    public boolean triggerSchedule(String name) {
        return schedulesRole.triggerSchedule(name);
    }

    @Override
    public void rescheduleCron(String name, String cron) {
        schedulesRole.rescheduleCron(name, cron);
    }

    @Override
    public void rescheduleFixedRate(String name, Duration fixedRate) {
        schedulesRole.rescheduleFixedRate(name, fixedRate);
    }

    @Override
    public Optional<WorkflowInfo> workflow(long workflowId) {
        return workflowsRole.workflow(workflowId);
    }

    @Override
    public Map<WorkflowState, Long> workflowsByState() {
        return workflowsRole.workflowsByState();
    }

    @Override
    public List<WorkflowInfo> workflows(WorkflowQuery query) {
        return workflowsRole.workflows(query);
    }

    @Override
    public List<WorkflowNodeInfo> workflowNodes(long workflowId, long afterJobId, int limit) {
        return workflowsRole.workflowNodes(workflowId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelWorkflow(long workflowId) {
        return workflowsRole.cancelWorkflow(workflowId);
    }

    @Override
    public Optional<BatchInfo> batch(long batchId) {
        return batchesRole.batch(batchId);
    }

    @Override
    public Map<BatchState, Long> batchesByState() {
        return batchesRole.batchesByState();
    }

    @Override
    public List<BatchInfo> batches(BatchQuery query) {
        return batchesRole.batches(query);
    }

    @Override
    public List<BatchMemberInfo> batchMembers(long batchId, long afterJobId, int limit) {
        return batchesRole.batchMembers(batchId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelBatch(long batchId) {
        return batchesRole.cancelBatch(batchId);
    }

    @Override
    public void setFairnessWeight(String queue, String key, double weight) {
        fairnessRole.setFairnessWeight(queue, key, weight);
    }

    @Override
    public void clearFairnessWeight(String queue, String key) {
        fairnessRole.clearFairnessWeight(queue, key);
    }

    @Override
    public void pauseFairnessKey(String queue, String key) {
        fairnessRole.pauseFairnessKey(queue, key);
    }

    @Override
    public void resumeFairnessKey(String queue, String key) {
        fairnessRole.resumeFairnessKey(queue, key);
    }

    @Override
    public List<FairnessKeyInfo> fairnessKeys(String queue, int limit) {
        return fairnessRole.fairnessKeys(queue, limit);
    }

    @Override
    public List<FairnessKeyCounts> fairnessKeyCounts() {
        return fairnessRole.fairnessKeyCounts();
    }

    @Override
    public List<ClusterNode> nodes() {
        return clusterRole.nodes();
    }

    @Override
    public Optional<VacuumHold> vacuumHold() {
        return clusterRole.vacuumHold();
    }

    @Override
    public @Nullable String schemaVersion() {
        return clusterRole.schemaVersion();
    }

    @Override
    public List<DatabaseStatus> databases() {
        return clusterRole.databases();
    }

    @Override
    public List<JobStep> steps(long jobId, boolean content) {
        return durableRole.steps(jobId, content);
    }

    @Override
    public Optional<JobWait> waitOf(long jobId) {
        return durableRole.waitOf(jobId);
    }

    @Override
    public boolean wake(long jobId) {
        return durableRole.wake(jobId);
    }

    @Override
    public boolean emit(String key, @Nullable String payloadJson) {
        return durableRole.emit(key, payloadJson);
    }
}
