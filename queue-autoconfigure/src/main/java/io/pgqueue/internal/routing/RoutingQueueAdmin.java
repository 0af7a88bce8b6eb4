package io.pgqueue.internal.routing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import io.pgqueue.admin.QueueAdmin;
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
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The application's {@link QueueAdmin} when queues live in several databases. A call about a queue goes to
 * its database, a call about a job, workflow or batch to the database of its id's block; a listing asks every
 * database and merges the answers, leaving out a database that does not answer (so that one database down
 * does not blank the dashboard of the others; {@link #databases()} says which one is down).
 */
public final class RoutingQueueAdmin implements QueueAdmin {

    private static final Log logger = LogFactory.getLog(RoutingQueueAdmin.class);

    private final DatabaseRouter<QueueAdmin> router;

    public RoutingQueueAdmin(DatabaseRouter<QueueAdmin> router) {
        this.router = router;
    }

    private QueueAdmin of(String queue) {
        return router.forQueue(queue).service();
    }

    private QueueAdmin id(long id) {
        return router.serviceForId(id);
    }

    /** Every answering database's list, concatenated in database order. */
    private <T> List<T> all(Function<QueueAdmin, List<T>> call) {
        List<T> merged = new ArrayList<>();
        for (DatabaseUnit<QueueAdmin> unit : router.units()) {
            try {
                merged.addAll(call.apply(unit.service()));
            }
            catch (RuntimeException ex) {
                skipped(unit, ex);
            }
        }
        return merged;
    }

    private static void skipped(DatabaseUnit<QueueAdmin> unit, RuntimeException ex) {
        if (logger.isDebugEnabled()) {
            logger.debug("Left " + unit + " out of a listing: it did not answer", ex);
        }
    }

    /** The first database that finds the name, asked in order; the default database's answer when none does. */
    private <T> T firstFound(Function<QueueAdmin, T> call, java.util.function.Predicate<T> found) {
        T answer = null;
        for (DatabaseUnit<QueueAdmin> unit : router.units()) {
            T candidate = call.apply(unit.service());
            if (answer == null) {
                answer = candidate;
            }
            if (found.test(candidate)) {
                return candidate;
            }
        }
        return answer;
    }

    private QueueAdmin schedule(String name) {
        for (DatabaseUnit<QueueAdmin> unit : router.units()) {
            try {
                if (unit.service().schedules().stream().anyMatch((schedule) -> schedule.name().equals(name))) {
                    return unit.service();
                }
            }
            catch (RuntimeException ex) {
                skipped(unit, ex);
            }
        }
        return router.defaultUnit().service();
    }

    @Override
    public List<ScheduleInfo> schedules() {
        return all(QueueAdmin::schedules);
    }

    @Override
    public boolean removeSchedule(String name) {
        return firstFound((admin) -> admin.removeSchedule(name), Boolean::booleanValue);
    }

    @Override
    public void pauseSchedule(String name) {
        schedule(name).pauseSchedule(name);
    }

    @Override
    public void resumeSchedule(String name) {
        schedule(name).resumeSchedule(name);
    }

    @Override
    public boolean triggerSchedule(String name) {
        return schedule(name).triggerSchedule(name);
    }

    @Override
    public void rescheduleCron(String name, String cron) {
        schedule(name).rescheduleCron(name, cron);
    }

    @Override
    public void rescheduleFixedRate(String name, Duration fixedRate) {
        schedule(name).rescheduleFixedRate(name, fixedRate);
    }

    @Override
    public JobInfo job(long jobId) {
        return id(jobId).job(jobId);
    }

    @Override
    public JobPage jobs(JobQuery query) {
        return of(query.queue()).jobs(query);
    }

    @Override
    public CancelResult cancel(long jobId) {
        return id(jobId).cancel(jobId);
    }

    @Override
    public BulkCancelResult cancel(JobQuery query) {
        return of(query.queue()).cancel(query);
    }

    @Override
    public List<QueueStats> queues() {
        return all(QueueAdmin::queues);
    }

    @Override
    public Optional<QueueStats> queue(String queue) {
        return of(queue).queue(queue);
    }

    @Override
    public void pause(String queue) {
        of(queue).pause(queue);
    }

    @Override
    public void resume(String queue) {
        of(queue).resume(queue);
    }

    @Override
    public boolean isPaused(String queue) {
        return of(queue).isPaused(queue);
    }

    @Override
    public Set<String> pausedQueues() {
        return new LinkedHashSet<>(all((admin) -> List.copyOf(admin.pausedQueues())));
    }

    @Override
    public void setFairnessWeight(String queue, String key, double weight) {
        of(queue).setFairnessWeight(queue, key, weight);
    }

    @Override
    public void clearFairnessWeight(String queue, String key) {
        of(queue).clearFairnessWeight(queue, key);
    }

    @Override
    public void pauseFairnessKey(String queue, String key) {
        of(queue).pauseFairnessKey(queue, key);
    }

    @Override
    public void resumeFairnessKey(String queue, String key) {
        of(queue).resumeFairnessKey(queue, key);
    }

    @Override
    public List<FairnessKeyInfo> fairnessKeys(String queue, int limit) {
        return of(queue).fairnessKeys(queue, limit);
    }

    @Override
    public List<FairnessKeyCounts> fairnessKeyCounts() {
        return all(QueueAdmin::fairnessKeyCounts);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        return of(queue).deadJobs(queue, offset, limit);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content) {
        return of(queue).deadJobs(queue, offset, limit, content);
    }

    @Override
    public boolean retryDead(String queue, long jobId) {
        return of(queue).retryDead(queue, jobId);
    }

    @Override
    public int retryDead(String queue, Collection<Long> jobIds) {
        return of(queue).retryDead(queue, jobIds);
    }

    @Override
    public int retryAllDead(String queue) {
        return of(queue).retryAllDead(queue);
    }

    @Override
    public long retryDead(JobQuery query) {
        return of(query.queue()).retryDead(query);
    }

    @Override
    public boolean purgeDead(String queue, long jobId) {
        return of(queue).purgeDead(queue, jobId);
    }

    @Override
    public int purgeDead(String queue, Collection<Long> jobIds) {
        return of(queue).purgeDead(queue, jobIds);
    }

    @Override
    public long purgeDead(String queue) {
        return of(queue).purgeDead(queue);
    }

    @Override
    public long purgeDead(JobQuery query) {
        return of(query.queue()).purgeDead(query);
    }

    /** Every database's nodes; this application's node is one node however many databases it is a member of. */
    @Override
    public List<ClusterNode> nodes() {
        Map<UUID, ClusterNode> byId = new LinkedHashMap<>();
        for (ClusterNode node : all(QueueAdmin::nodes)) {
            byId.merge(node.id(), node, (a, b) -> new ClusterNode(a.id(), a.host(), a.pid(), a.startedAt(),
                    a.heartbeatAt().isBefore(b.heartbeatAt()) ? a.heartbeatAt() : b.heartbeatAt(),
                    java.util.stream.Stream.concat(a.containers().stream(), b.containers().stream()).toList()));
        }
        return List.copyOf(byId.values());
    }

    /** The oldest hold on any database's vacuum. */
    @Override
    public Optional<VacuumHold> vacuumHold() {
        Instant now = Instant.now();
        return all((admin) -> admin.vacuumHold().stream().toList()).stream()
            .max(Comparator.comparing((VacuumHold hold) -> hold.age(now)));
    }

    @Override
    public @Nullable String schemaVersion() {
        return router.defaultUnit().service().schemaVersion();
    }

    @Override
    public List<QueueCounts> reconcile() {
        List<QueueCounts> counts = new ArrayList<>();
        router.units().forEach((unit) -> counts.addAll(unit.service().reconcile()));
        return counts;
    }

    @Override
    public Optional<WorkflowInfo> workflow(long workflowId) {
        return id(workflowId).workflow(workflowId);
    }

    @Override
    public Map<WorkflowState, Long> workflowsByState() {
        return sum(QueueAdmin::workflowsByState, new EnumMap<>(WorkflowState.class));
    }

    /** Newest first across databases: ids order them, every database's block above the one before. */
    @Override
    public List<WorkflowInfo> workflows(WorkflowQuery query) {
        return newest(all((admin) -> admin.workflows(query)), WorkflowInfo::id, query.limit());
    }

    @Override
    public List<WorkflowNodeInfo> workflowNodes(long workflowId, long afterJobId, int limit) {
        return id(workflowId).workflowNodes(workflowId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelWorkflow(long workflowId) {
        return id(workflowId).cancelWorkflow(workflowId);
    }

    @Override
    public Optional<BatchInfo> batch(long batchId) {
        return id(batchId).batch(batchId);
    }

    @Override
    public Map<BatchState, Long> batchesByState() {
        return sum(QueueAdmin::batchesByState, new EnumMap<>(BatchState.class));
    }

    @Override
    public List<BatchInfo> batches(BatchQuery query) {
        return newest(all((admin) -> admin.batches(query)), BatchInfo::id, query.limit());
    }

    @Override
    public List<BatchMemberInfo> batchMembers(long batchId, long afterJobId, int limit) {
        return id(batchId).batchMembers(batchId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelBatch(long batchId) {
        return id(batchId).cancelBatch(batchId);
    }

    @Override
    public List<DatabaseStatus> databases() {
        List<DatabaseStatus> statuses = new ArrayList<>();
        for (DatabaseUnit<QueueAdmin> unit : router.units()) {
            List<String> queues = unit.queues().stream().sorted().toList();
            // a database's admin with a read replica probes itself and tells its replica's lag
            List<DatabaseStatus> own = unit.service().databases();
            DatabaseStatus status = own.isEmpty() ? DatabaseStatus.probe(unit.name(), queues, unit.service()::schemaVersion)
                    : new DatabaseStatus(unit.name(), own.get(0).up(), own.get(0).error(), queues, own.get(0).replicaLag());
            statuses.add(status);
        }
        return statuses;
    }

    private <K> Map<K, Long> sum(Function<QueueAdmin, Map<K, Long>> call, Map<K, Long> totals) {
        all((admin) -> List.copyOf(call.apply(admin).entrySet()))
            .forEach((entry) -> totals.merge(entry.getKey(), entry.getValue(), Long::sum));
        return totals;
    }

    private static <T> List<T> newest(List<T> items, ToLongFunction<T> id, int limit) {
        return items.stream().sorted(Comparator.comparingLong(id).reversed()).limit(limit).toList();
    }
}
