package io.pgqueue.internal.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.persistence.JobAdminPort;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.persistence.VacuumHorizonRepository;
import io.pgqueue.internal.schedule.ScheduleOperations;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.CancelResult;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.FairnessKeyCounts;
import io.pgqueue.model.FairnessKeyInfo;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.model.NoSuchJobException;
import io.pgqueue.model.NodeContainer;
import io.pgqueue.model.QueueCounts;
import io.pgqueue.model.QueueListenerNode;
import io.pgqueue.model.QueueNames;
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
 * Operating queues from Java: what the Actuator endpoint offers over HTTP. Pausing is stored in the
 * database and honoured by every node's next claim.
 */
public class JdbcQueueAdmin implements QueueAdmin {

    private static final Log logger = LogFactory.getLog(QueueAdmin.class);

    /** Dead jobs deleted per statement by {@link #purgeDead(String)}: no long-running delete. */
    static final int PURGE_BATCH = 10_000;

    /** Attempts to cancel a job a transaction holds, before saying it runs in a TRANSACTIONAL listener. */
    private static final int CANCEL_TRIES = 6;

    /** Nodes cancelled per statement when a workflow is cancelled. */
    private static final int WORKFLOW_CANCEL_CHUNK = 10_000;

    private final Repositories repositories;

    private final ScheduleOperations schedules;

    private final Wakeups wakeups;

    private final @Nullable VacuumHorizonWatch vacuumHorizon;

    public JdbcQueueAdmin(Repositories repositories, Wakeups wakeups) {
        this(repositories, wakeups, null);
    }

    /**
     * @param vacuumHorizon the node's watch of what holds back vacuum, or null to look each time asked
     */
    public JdbcQueueAdmin(Repositories repositories, Wakeups wakeups, @Nullable VacuumHorizonWatch vacuumHorizon) {
        this.vacuumHorizon = vacuumHorizon;
        this.repositories = repositories;
        this.wakeups = wakeups;
        this.schedules = new ScheduleOperations(repositories.schedules(), wakeups);
    }

    @Override
    public Optional<VacuumHold> vacuumHold() {
        if (vacuumHorizon != null) {
            return vacuumHorizon.current();
        }
        return repositories.vacuumHorizon().oldest().map(VacuumHorizonRepository.Held::hold);
    }

    /** Every recurring job with its next and last tick. */
    @Override
    public List<ScheduleInfo> schedules() {
        return schedules.list();
    }


    /**
     * Removes a recurring job; returns whether it existed. A node that still declares it declares it again
     * when it starts.
     */
    @Override
    public boolean removeSchedule(String name) {
        return schedules.remove(name);
    }

    /** Stops firing a recurring job until resumed, on every node, across restarts. */
    @Override
    public void pauseSchedule(String name) {
        schedules.pause(name);
    }

    /** Fires a paused recurring job again from its next tick. */
    @Override
    public void resumeSchedule(String name) {
        schedules.resume(name);
    }

    /**
     * Enqueues one job of a recurring job now (its regular ticks go on); exactly one job however many nodes
     * are asked at once. Returns whether this call enqueued it.
     */
    @Override
    public boolean triggerSchedule(String name) {
        return schedules.trigger(name);
    }

    /** Gives a recurring job a new cron expression, kept over what configuration declares. */
    @Override
    public void rescheduleCron(String name, String cron) {
        schedules.reschedule(name, cron);
    }

    /** Gives a recurring job a new fixed rate, kept over what configuration declares. */
    @Override
    public void rescheduleFixedRate(String name, Duration fixedRate) {
        schedules.reschedule(name, fixedRate);
    }

    /**
     * A job by id: a live one, or a finished one while the history keeps it.
     * @throws NoSuchJobException when there is none
     */
    @Override
    public JobInfo job(long jobId) {
        JobInfo job = repositories.admin().job(jobId);
        if (job == null) {
            throw new NoSuchJobException(jobId);
        }
        return job;
    }

    /** A page of a queue's jobs matching the query, newest first; read every filter from an index. */
    @Override
    public JobPage jobs(JobQuery query) {
        List<JobInfo> jobs = repositories.admin().jobs(query);
        Long next = (jobs.size() == query.limit()) ? jobs.get(jobs.size() - 1).id() : null;
        return new JobPage(jobs, next);
    }

    /**
     * Cancels a job. One that has not started finishes as cancelled at once (its dedup key and group are
     * released; kept in the history as cancelled when history is on). Of a running LEASE job, the
     * cancellation is requested: its node interrupts the handler within a heartbeat, and the job finishes as
     * cancelled whatever the handler does. Cancelled jobs never run again.
     * @throws NoSuchJobException when there is no such job
     * @throws IllegalStateException when the job already finished (nothing changes), is dead (retry or purge
     * it instead), or is running in a TRANSACTIONAL listener, whose transaction holds it
     */
    @Override
    public CancelResult cancel(long jobId) {
        long backoff = 20;
        for (int tries = 1;; tries++) {
            JobAdminPort.Cancellation cancellation = repositories.admin().cancel(new long[] { jobId });
            if (cancellation.cancelled().contains(jobId)) {
                logger.info("Job " + jobId + " cancelled");
                return CancelResult.CANCELLED;
            }
            if (cancellation.requested().contains(jobId)) {
                logger.info("Cancellation of running job " + jobId + " requested");
                wakeups.cancelRequested(jobId);
                return CancelResult.CANCEL_REQUESTED;
            }
            JobInfo job = job(jobId);
            if (job.state().isFinished()) {
                throw new IllegalStateException("Job " + jobId + " has already finished (" + job.state().value()
                        + "): nothing to cancel");
            }
            if (job.state() == JobState.DEAD) {
                throw new IllegalStateException("Job " + jobId + " is dead and will not run unless retried: "
                        + "purge it to remove it");
            }
            if (tries == CANCEL_TRIES) {
                throw new IllegalStateException("Job " + jobId + " is running in a TRANSACTIONAL listener, whose "
                        + "transaction holds it: it cannot be cancelled while it runs (it commits or rolls back "
                        + "with that transaction)");
            }
            // held for a moment (a claim, a state change), or by a TRANSACTIONAL handler's transaction
            pause(backoff);
            backoff *= 2;
        }
    }

    /**
     * Cancels every scheduled, ready and running job matching the query (its limit is the batch size of
     * each round; dead and finished jobs are not matched), as {@link #cancel(long)} does one.
     */
    @Override
    public BulkCancelResult cancel(JobQuery query) {
        JobQuery.Builder cancellable = query.toBuilder();
        List<JobState> states = query.liveStates().stream().filter((state) -> state != JobState.DEAD).toList();
        if (states.isEmpty()) {
            return new BulkCancelResult(0, 0, 0);
        }
        cancellable.states(states.toArray(JobState[]::new)).withoutContent();
        JobQuery page = cancellable.build();
        long cancelled = 0;
        long requested = 0;
        long skipped = 0;
        while (true) {
            List<JobInfo> jobs = repositories.admin().jobs(page);
            if (jobs.isEmpty()) {
                break;
            }
            JobAdminPort.Cancellation cancellation = repositories.admin()
                .cancel(jobs.stream().mapToLong(JobInfo::id).toArray());
            cancelled += cancellation.cancelled().size();
            requested += cancellation.requested().size();
            if (!cancellation.requested().isEmpty()) {
                wakeups.cancelRequested(
                        (cancellation.requested().size() == 1) ? cancellation.requested().iterator().next() : null);
            }
            skipped += jobs.size() - cancellation.cancelled().size() - cancellation.requested().size();
            if (jobs.size() < page.limit()) {
                break;
            }
            page = page.after(jobs.get(jobs.size() - 1).id());
        }
        logger.info("Cancelled " + cancelled + " job(s) of queue '" + query.queue() + "', requested the cancellation "
                + "of " + requested + " running, skipped " + skipped);
        return new BulkCancelResult(cancelled, requested, skipped);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while cancelling", ex);
        }
    }

    /**
     * Every queue the counters know, and every queue a node listens to or a schedule sends to (with zero counts
     * until its first job), with counts, lag, pause state and the nodes listening; sorted by name.
     */
    @Override
    public List<QueueStats> queues() {
        Map<String, QueueCounts> counts = new TreeMap<>();
        repositories.stats().counts().forEach((c) -> counts.put(c.queue(), c));
        Map<String, List<QueueListenerNode>> listeners = new HashMap<>();
        for (ClusterNode node : nodes()) {
            for (NodeContainer container : node.containers()) {
                listeners.computeIfAbsent(container.queue(), (queue) -> new ArrayList<>())
                    .add(QueueListenerNode.of(node, container));
            }
        }
        listeners.keySet().forEach((queue) -> counts.computeIfAbsent(queue, JdbcQueueAdmin::noJobs));
        schedules().forEach((schedule) -> counts.computeIfAbsent(schedule.queue(), JdbcQueueAdmin::noJobs));
        Map<String, Duration> lags = repositories.stats().lags();
        Set<String> paused = repositories.stats().pausedQueues();
        return counts.values()
            .stream()
            .map((c) -> new QueueStats(c, lags.get(c.queue()), paused.contains(c.queue()),
                    listeners.getOrDefault(c.queue(), List.of())))
            .toList();
    }

    private static QueueCounts noJobs(String queue) {
        return new QueueCounts(queue, Map.of(), 0, 0, 0, 0, 0);
    }

    @Override
    public Optional<QueueStats> queue(String queue) {
        QueueNames.validate(queue);
        return queues().stream().filter((stats) -> stats.queue().equals(queue)).findFirst();
    }

    @Override
    public void pause(String queue) {
        repositories.stats().setPaused(QueueNames.validate(queue), true);
        logger.info("Queue '" + queue + "' paused");
    }

    /**
     * Lets the queue's jobs be claimed again; its listeners on every node are woken at once (when NOTIFY is
     * on), not at their next poll.
     */
    @Override
    public void resume(String queue) {
        repositories.stats().setPaused(QueueNames.validate(queue), false);
        wakeups.jobsReady(queue);
        logger.info("Queue '" + queue + "' resumed");
    }

    @Override
    public void setFairnessWeight(String queue, String key, double weight) {
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("A fairness weight must be a number above zero: " + weight);
        }
        repositories.fairness().setWeight(QueueNames.validate(queue), fairnessKey(queue, key), weight);
        logger.info("Fairness key '" + key + "' of queue '" + queue + "' weighs " + weight);
    }

    @Override
    public void clearFairnessWeight(String queue, String key) {
        repositories.fairness().setWeight(QueueNames.validate(queue), fairnessKey(queue, key), null);
        logger.info("Fairness key '" + key + "' of queue '" + queue + "' weighs as configured");
    }

    @Override
    public void pauseFairnessKey(String queue, String key) {
        repositories.fairness().setPaused(QueueNames.validate(queue), fairnessKey(queue, key), true);
        logger.info("Fairness key '" + key + "' of queue '" + queue + "' paused");
    }

    @Override
    public void resumeFairnessKey(String queue, String key) {
        repositories.fairness().setPaused(QueueNames.validate(queue), fairnessKey(queue, key), false);
        wakeups.jobsReady(queue);
        logger.info("Fairness key '" + key + "' of queue '" + queue + "' resumed");
    }

    @Override
    public List<FairnessKeyInfo> fairnessKeys(String queue, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1: " + limit);
        }
        return repositories.fairness().keys(QueueNames.validate(queue), limit);
    }

    /** A fairness key as a send accepts it: 1 to 512 characters. */
    @Override
    public List<FairnessKeyCounts> fairnessKeyCounts() {
        return repositories.fairness().keyCounts();
    }

    /** The key an operation names: the key itself, or the handle a masked listing showed for it. */
    private String fairnessKey(String queue, String key) {
        if (key == null || key.isEmpty() || key.length() > 512) {
            throw new IllegalArgumentException("A fairness key must have 1 to 512 characters: " + key);
        }
        if (FairnessKeyInfo.isHandle(key)) {
            String handled = repositories.fairness().keyOfHandle(queue, key);
            if (handled != null) {
                return handled;
            }
        }
        return key;
    }

    @Override
    public boolean isPaused(String queue) {
        return repositories.stats().pausedQueues().contains(queue);
    }

    @Override
    public Set<String> pausedQueues() {
        return repositories.stats().pausedQueues();
    }

    /** Dead jobs of a queue, newest first. */
    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        return deadJobs(queue, offset, limit, true);
    }

    /**
     * Dead jobs of a queue, newest first; without content, for a list that shows no payloads, their payloads
     * are null and their errors keep the first line, and neither is read.
     */
    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content) {
        if (offset < 0 || limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("offset must be >= 0 and limit between 1 and 1000");
        }
        return repositories.admin().deadJobs(QueueNames.validate(queue), offset, limit, content);
    }

    /** Makes one dead job ready again with fresh attempts; returns whether it was dead. */
    @Override
    public boolean retryDead(String queue, long jobId) {
        return ready(queue, repositories.admin().retryDead(QueueNames.validate(queue), new long[] { jobId })) > 0;
    }

    /**
     * Makes the given dead jobs of the queue ready again with fresh attempts (one statement); returns how many
     * were dead. Ids of jobs that are not dead, or of another queue, are ignored.
     */
    @Override
    public int retryDead(String queue, Collection<Long> jobIds) {
        return jobIds.isEmpty() ? 0 : ready(queue, repositories.admin().retryDead(QueueNames.validate(queue), ids(jobIds)));
    }

    /** Makes every dead job of the queue ready again; returns how many. */
    @Override
    public int retryAllDead(String queue) {
        return ready(queue, repositories.admin().retryDead(QueueNames.validate(queue), null));
    }

    /**
     * Makes every dead job matching the query's filters ready again, a page (the query's limit) at a time;
     * returns how many. The query's states are ignored: only dead jobs are retried.
     */
    @Override
    public long retryDead(JobQuery query) {
        long retried = forEachDeadPage(query, (ids) -> ready(query.queue(), repositories.admin().retryDead(query.queue(), ids)));
        logger.info("Retried " + retried + " dead job(s) of queue '" + query.queue() + "' matching " + query);
        return retried;
    }

    /** Deletes one dead job; returns whether it existed. */
    @Override
    public boolean purgeDead(String queue, long jobId) {
        return repositories.admin().purgeDead(QueueNames.validate(queue), new long[] { jobId }, 1) > 0;
    }

    /** Deletes the given dead jobs of the queue (one statement); returns how many. Other ids are ignored. */
    @Override
    public int purgeDead(String queue, Collection<Long> jobIds) {
        return jobIds.isEmpty() ? 0
                : repositories.admin().purgeDead(QueueNames.validate(queue), ids(jobIds), jobIds.size());
    }

    /** Deletes every dead job of the queue in bounded batches; returns how many. */
    @Override
    public long purgeDead(String queue) {
        QueueNames.validate(queue);
        long purged = 0;
        int batch;
        do {
            batch = repositories.admin().purgeDead(queue, null, PURGE_BATCH);
            purged += batch;
        }
        while (batch == PURGE_BATCH);
        return purged;
    }

    /**
     * Deletes every dead job matching the query's filters, a page (the query's limit) at a time; returns how
     * many. The query's states are ignored: only dead jobs are deleted.
     */
    @Override
    public long purgeDead(JobQuery query) {
        long purged = forEachDeadPage(query, (ids) -> repositories.admin().purgeDead(query.queue(), ids, ids.length));
        logger.info("Purged " + purged + " dead job(s) of queue '" + query.queue() + "' matching " + query);
        return purged;
    }

    /**
     * Applies an operation to the dead jobs matching the query, page by page. Each operation takes its page's
     * jobs out of the dead state, so the next page starts again from the newest dead job left; a page whose
     * jobs all stayed (e.g. held by a live job's dedup key) moves the cursor past them.
     */
    private long forEachDeadPage(JobQuery query, ToIntFunction<long[]> operation) {
        JobQuery page = query.toBuilder().states(JobState.DEAD).withoutContent().build();
        long done = 0;
        while (true) {
            List<JobInfo> jobs = repositories.admin().jobs(page);
            if (jobs.isEmpty()) {
                return done;
            }
            done += operation.applyAsInt(jobs.stream().mapToLong(JobInfo::id).toArray());
            if (jobs.size() < page.limit()) {
                return done;
            }
            // always on below this page: a retried job that died again at once keeps its id, and must not be
            // found, and retried, again and again
            page = page.after(jobs.get(jobs.size() - 1).id());
        }
    }

    /** Retried dead jobs are ready: their listeners are woken as for new ones. */
    private int ready(String queue, int retried) {
        if (retried > 0) {
            wakeups.jobsReady(queue);
        }
        return retried;
    }

    private static long[] ids(Collection<Long> jobIds) {
        return jobIds.stream().mapToLong(Long::longValue).toArray();
    }

    /** Every node of the cluster, oldest first. */
    @Override
    public List<ClusterNode> nodes() {
        return repositories.nodes().nodes();
    }

    /** pgqueue's schema version, or null when pgqueue did not migrate the schema. */
    @Override
    public @Nullable String schemaVersion() {
        return repositories.schemaInfo().version();
    }

    /**
     * Recomputes the state counts from the job table and repairs any drift (a full scan of the job table).
     * @return the drift found per queue, empty when the counters were exact
     */
    @Override
    public Optional<WorkflowInfo> workflow(long workflowId) {
        return Optional.ofNullable(repositories.workflows().workflow(workflowId));
    }

    @Override
    public Map<WorkflowState, Long> workflowsByState() {
        Map<WorkflowState, Long> counts = new java.util.EnumMap<>(WorkflowState.class);
        for (WorkflowState state : WorkflowState.values()) {
            counts.put(state, 0L);
        }
        repositories.workflows().countsByState().forEach((state, count) -> counts.put(WorkflowState.of(state), count));
        return counts;
    }

    @Override
    public List<WorkflowInfo> workflows(WorkflowQuery query) {
        return repositories.workflows().workflows(query);
    }

    @Override
    public List<WorkflowNodeInfo> workflowNodes(long workflowId, long afterJobId, int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be between 1 and 10000: " + limit);
        }
        return repositories.workflows().nodePage(workflowId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelWorkflow(long workflowId) {
        List<Long> ids = repositories.workflows().unfinishedJobIds(workflowId);
        long cancelled = 0;
        long requested = 0;
        List<Long> announced = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += WORKFLOW_CANCEL_CHUNK) {
            long[] chunk = ids.subList(from, Math.min(ids.size(), from + WORKFLOW_CANCEL_CHUNK)).stream()
                .mapToLong(Long::longValue)
                .toArray();
            JobAdminPort.Cancellation cancellation = repositories.admin().cancel(chunk);
            cancelled += cancellation.cancelled().size();
            requested += cancellation.requested().size();
            announced.addAll(cancellation.requested());
        }
        if (!announced.isEmpty()) {
            wakeups.cancelRequested((announced.size() == 1) ? announced.get(0) : null);
        }
        logger.info("Workflow " + workflowId + " cancelled: " + cancelled + " node(s) cancelled, " + requested
                + " running node(s) asked to cancel");
        return new BulkCancelResult(cancelled, requested, ids.size() - cancelled - requested);
    }

    @Override
    public Optional<BatchInfo> batch(long batchId) {
        return Optional.ofNullable(repositories.batches().batch(batchId));
    }

    @Override
    public Map<BatchState, Long> batchesByState() {
        Map<BatchState, Long> counts = new java.util.EnumMap<>(BatchState.class);
        for (BatchState state : BatchState.values()) {
            counts.put(state, 0L);
        }
        repositories.batches().countsByState().forEach((state, count) -> counts.put(BatchState.of(state), count));
        return counts;
    }

    @Override
    public List<BatchInfo> batches(BatchQuery query) {
        return repositories.batches().batches(query);
    }

    @Override
    public List<BatchMemberInfo> batchMembers(long batchId, long afterJobId, int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be between 1 and 10000: " + limit);
        }
        return repositories.batches().members(batchId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelBatch(long batchId) {
        String was = repositories.batches().markCancelled(batchId);
        if (was == null) {
            return new BulkCancelResult(0, 0, 0);
        }
        if ("open".equals(was)) {
            repositories.batches().sealCancelled(batchId);
        }
        JobAdminPort.Cancellation cancellation = repositories.admin().cancelBatchMembers(batchId);
        if (!cancellation.requested().isEmpty()) {
            wakeups.cancelRequested((cancellation.requested().size() == 1)
                    ? cancellation.requested().iterator().next() : null);
        }
        logger.info("Batch " + batchId + " cancelled: " + cancellation.cancelled().size() + " member(s) cancelled, "
                + cancellation.requested().size() + " running member(s) asked to cancel");
        return new BulkCancelResult(cancellation.cancelled().size(), cancellation.requested().size(), 0);
    }

    @Override
    public List<QueueCounts> reconcile() {
        repositories.stats().squeeze();
        List<QueueCounts> drift = repositories.stats().reconcile();
        drift.forEach((d) -> logger.warn("Counter drift repaired for queue '" + d.queue() + "': scheduled "
                + d.scheduled() + ", ready " + d.ready() + ", running " + d.running() + ", dead " + d.dead()));
        repositories.stats().squeeze();
        return drift;
    }
}
