package io.pgqueue.internal.admin;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.persistence.ReplicaRepository;
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
 * One database's {@link QueueAdmin} with a read replica: the listings that page through many rows (jobs by
 * query, dead jobs, workflows, batches and their members) are read from the replica, and may lag it; every
 * other call, writes and single lookups included, goes to the primary. Claims, sends and acknowledgements
 * never pass here.
 */
public final class ReplicaReadingQueueAdmin implements QueueAdmin {

    private final String database;

    private final QueueAdmin primary;

    private final QueueAdmin replica;

    private final ReplicaRepository replicaState;

    public ReplicaReadingQueueAdmin(String database, QueueAdmin primary, QueueAdmin replica,
            ReplicaRepository replicaState) {
        this.database = database;
        this.primary = primary;
        this.replica = replica;
        this.replicaState = replicaState;
    }

    /** The replica's replay lag, or null when it does not answer or is not a replica. */
    public @Nullable Duration replicaLag() {
        try {
            return replicaState.replayLag();
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    @Override
    public JobPage jobs(JobQuery query) {
        return replica.jobs(query);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        return replica.deadJobs(queue, offset, limit);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content) {
        return replica.deadJobs(queue, offset, limit, content);
    }

    @Override
    public List<WorkflowInfo> workflows(WorkflowQuery query) {
        return replica.workflows(query);
    }

    @Override
    public List<WorkflowNodeInfo> workflowNodes(long workflowId, long afterJobId, int limit) {
        return replica.workflowNodes(workflowId, afterJobId, limit);
    }

    @Override
    public List<BatchInfo> batches(BatchQuery query) {
        return replica.batches(query);
    }

    @Override
    public List<BatchMemberInfo> batchMembers(long batchId, long afterJobId, int limit) {
        return replica.batchMembers(batchId, afterJobId, limit);
    }

    /** This database, as its primary answers, with its replica's lag. */
    @Override
    public List<DatabaseStatus> databases() {
        return List.of(DatabaseStatus.probe(database, List.of(), primary::schemaVersion).withReplicaLag(replicaLag()));
    }

    @Override
    public List<ScheduleInfo> schedules() {
        return primary.schedules();
    }

    @Override
    public boolean removeSchedule(String name) {
        return primary.removeSchedule(name);
    }

    @Override
    public void pauseSchedule(String name) {
        primary.pauseSchedule(name);
    }

    @Override
    public void resumeSchedule(String name) {
        primary.resumeSchedule(name);
    }

    @Override
    public boolean triggerSchedule(String name) {
        return primary.triggerSchedule(name);
    }

    @Override
    public void rescheduleCron(String name, String cron) {
        primary.rescheduleCron(name, cron);
    }

    @Override
    public void rescheduleFixedRate(String name, Duration fixedRate) {
        primary.rescheduleFixedRate(name, fixedRate);
    }

    @Override
    public JobInfo job(long jobId) {
        return primary.job(jobId);
    }

    @Override
    public CancelResult cancel(long jobId) {
        return primary.cancel(jobId);
    }

    @Override
    public BulkCancelResult cancel(JobQuery query) {
        return primary.cancel(query);
    }

    @Override
    public List<QueueStats> queues() {
        return primary.queues();
    }

    @Override
    public Optional<QueueStats> queue(String queue) {
        return primary.queue(queue);
    }

    @Override
    public void pause(String queue) {
        primary.pause(queue);
    }

    @Override
    public void resume(String queue) {
        primary.resume(queue);
    }

    @Override
    public boolean isPaused(String queue) {
        return primary.isPaused(queue);
    }

    @Override
    public Set<String> pausedQueues() {
        return primary.pausedQueues();
    }

    @Override
    public void setFairnessWeight(String queue, String key, double weight) {
        primary.setFairnessWeight(queue, key, weight);
    }

    @Override
    public void clearFairnessWeight(String queue, String key) {
        primary.clearFairnessWeight(queue, key);
    }

    @Override
    public void pauseFairnessKey(String queue, String key) {
        primary.pauseFairnessKey(queue, key);
    }

    @Override
    public void resumeFairnessKey(String queue, String key) {
        primary.resumeFairnessKey(queue, key);
    }

    @Override
    public List<FairnessKeyInfo> fairnessKeys(String queue, int limit) {
        return primary.fairnessKeys(queue, limit);
    }

    @Override
    public List<FairnessKeyCounts> fairnessKeyCounts() {
        return primary.fairnessKeyCounts();
    }

    @Override
    public boolean retryDead(String queue, long jobId) {
        return primary.retryDead(queue, jobId);
    }

    @Override
    public int retryDead(String queue, Collection<Long> jobIds) {
        return primary.retryDead(queue, jobIds);
    }

    @Override
    public int retryAllDead(String queue) {
        return primary.retryAllDead(queue);
    }

    @Override
    public long retryDead(JobQuery query) {
        return primary.retryDead(query);
    }

    @Override
    public boolean purgeDead(String queue, long jobId) {
        return primary.purgeDead(queue, jobId);
    }

    @Override
    public int purgeDead(String queue, Collection<Long> jobIds) {
        return primary.purgeDead(queue, jobIds);
    }

    @Override
    public long purgeDead(String queue) {
        return primary.purgeDead(queue);
    }

    @Override
    public long purgeDead(JobQuery query) {
        return primary.purgeDead(query);
    }

    @Override
    public List<ClusterNode> nodes() {
        return primary.nodes();
    }

    @Override
    public Optional<VacuumHold> vacuumHold() {
        return primary.vacuumHold();
    }

    @Override
    public @Nullable String schemaVersion() {
        return primary.schemaVersion();
    }

    @Override
    public List<QueueCounts> reconcile() {
        return primary.reconcile();
    }

    @Override
    public Optional<WorkflowInfo> workflow(long workflowId) {
        return primary.workflow(workflowId);
    }

    @Override
    public Map<WorkflowState, Long> workflowsByState() {
        return primary.workflowsByState();
    }

    @Override
    public BulkCancelResult cancelWorkflow(long workflowId) {
        return primary.cancelWorkflow(workflowId);
    }

    @Override
    public Optional<BatchInfo> batch(long batchId) {
        return primary.batch(batchId);
    }

    @Override
    public Map<BatchState, Long> batchesByState() {
        return primary.batchesByState();
    }

    @Override
    public BulkCancelResult cancelBatch(long batchId) {
        return primary.cancelBatch(batchId);
    }
}
