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
import io.pgqueue.model.NoSuchJobException;
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
 * Operating queues from Java: what the Actuator endpoint and the dashboard offer over HTTP. Pausing, schedules
 * and cancellation are stored in the database and honoured by every node. pgqueue's implementation backs off
 * when the application defines a bean of this type.
 */
public interface QueueAdmin {

    /** Every recurring job with its next and last tick. */
    List<ScheduleInfo> schedules();

    /**
     * Removes a recurring job; returns whether it existed. A node that still declares it declares it again
     * when it starts.
     */
    boolean removeSchedule(String name);

    /** Stops firing a recurring job until resumed, on every node, across restarts. */
    void pauseSchedule(String name);

    /** Fires a paused recurring job again from its next tick. */
    void resumeSchedule(String name);

    /**
     * Enqueues one job of a recurring job now (its regular ticks go on); exactly one job however many nodes
     * are asked at once. Returns whether this call enqueued it.
     */
    boolean triggerSchedule(String name);

    /** Gives a recurring job a new cron expression, kept over what configuration declares. */
    void rescheduleCron(String name, String cron);

    /** Gives a recurring job a new fixed rate, kept over what configuration declares. */
    void rescheduleFixedRate(String name, Duration fixedRate);

    /**
     * A job by id: a live one, or a finished one while the history keeps it.
     * @throws NoSuchJobException when there is none
     */
    JobInfo job(long jobId);

    /** A page of a queue's jobs matching the query, newest first; read every filter from an index. */
    JobPage jobs(JobQuery query);

    /**
     * Cancels a job. One that has not started finishes as cancelled at once (its dedup key and group are
     * released; kept in the history as cancelled when history is on). Of a running LEASE job, the
     * cancellation is requested: its node interrupts the handler within a heartbeat, and the job finishes as
     * cancelled whatever the handler does. Cancelled jobs never run again.
     * @throws NoSuchJobException when there is no such job
     * @throws IllegalStateException when the job already finished (nothing changes), is dead (retry or purge
     * it instead), or is running in a TRANSACTIONAL listener, whose transaction holds it
     */
    CancelResult cancel(long jobId);

    /**
     * Cancels every scheduled, ready and running job matching the query (its limit is the batch size of
     * each round; dead and finished jobs are not matched), as {@link #cancel(long)} does one.
     */
    BulkCancelResult cancel(JobQuery query);

    /**
     * Every queue the counters know, and every queue a node listens to or a schedule sends to (with zero counts
     * until its first job), with counts, lag, pause state and the nodes listening; sorted by name.
     */
    List<QueueStats> queues();

    Optional<QueueStats> queue(String queue);

    void pause(String queue);

    /**
     * Lets the queue's jobs be claimed again; its listeners on every node are woken at once (when NOTIFY is
     * on), not at their next poll.
     */
    void resume(String queue);

    boolean isPaused(String queue);

    Set<String> pausedQueues();

    /**
     * Sets a fairness key's weight in a fair queue, cluster-wide and across restarts: it takes precedence over the
     * configured weight ({@code pgqueue.queues.<queue>.fairness.weights}) from the next claim on.
     */
    void setFairnessWeight(String queue, String key, double weight);

    /** Clears a weight set at run time: the configured (or default) weight applies again. */
    void clearFairnessWeight(String queue, String key);

    /** Holds back one fairness key's jobs in a fair queue, on every node; the queue's other keys keep running. */
    void pauseFairnessKey(String queue, String key);

    /** Lets a paused fairness key's jobs run again, at once (its pause earns it no extra share). */
    void resumeFairnessKey(String queue, String key);

    /**
     * A fair queue's keys, active ones first: weight set at run time, pause, ready (counted up to a bound) and
     * running jobs, and how long the next job has waited.
     */
    List<FairnessKeyInfo> fairnessKeys(String queue, int limit);

    /** Every fair queue's keys, counted by what they do (active, paused, idle). */
    List<FairnessKeyCounts> fairnessKeyCounts();

    /** Dead jobs of a queue, newest first. */
    List<DeadJob> deadJobs(String queue, int offset, int limit);

    /**
     * Dead jobs of a queue, newest first; without content, for a list that shows no payloads, their payloads
     * are null and their errors keep the first line, and neither is read.
     */
    List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content);

    /** Makes one dead job ready again with fresh attempts; returns whether it was dead. */
    boolean retryDead(String queue, long jobId);

    /**
     * Makes the given dead jobs of the queue ready again with fresh attempts (one statement); returns how many
     * were dead. Ids of jobs that are not dead, or of another queue, are ignored.
     */
    int retryDead(String queue, Collection<Long> jobIds);

    /** Makes every dead job of the queue ready again; returns how many. */
    int retryAllDead(String queue);

    /**
     * Makes every dead job matching the query's filters ready again, a page (the query's limit) at a time;
     * returns how many. The query's states are ignored: only dead jobs are retried.
     */
    long retryDead(JobQuery query);

    /** Deletes one dead job; returns whether it existed. */
    boolean purgeDead(String queue, long jobId);

    /** Deletes the given dead jobs of the queue (one statement); returns how many. Other ids are ignored. */
    int purgeDead(String queue, Collection<Long> jobIds);

    /** Deletes every dead job of the queue in bounded batches; returns how many. */
    long purgeDead(String queue);

    /**
     * Deletes every dead job matching the query's filters, a page (the query's limit) at a time; returns how
     * many. The query's states are ignored: only dead jobs are deleted.
     */
    long purgeDead(JobQuery query);

    /** Every node of the cluster, oldest first. */
    List<ClusterNode> nodes();

    /**
     * What holds back vacuum in pgqueue's database the longest (the oldest transaction, prepared transaction
     * or replication slot), as of this node's last look, if anything does. While it holds, no row version the
     * queues leave behind can be removed, and tables and indexes grow.
     */
    Optional<VacuumHold> vacuumHold();

    /** pgqueue's schema version, or null when pgqueue did not migrate the schema. */
    @Nullable String schemaVersion();

    /**
     * Recomputes the state counts from the job table and repairs any drift (a full scan of the job table).
     * @return the drift found per queue, empty when the counters were exact
     */
    List<QueueCounts> reconcile();

    /** A workflow with its state and counts (read from its aggregate, whatever its size), if it exists. */
    Optional<WorkflowInfo> workflow(long workflowId);

    /** How many workflows are in each state (as stored by the last counter squeeze), for gauges. */
    Map<WorkflowState, Long> workflowsByState();

    /** Workflows by name and state, newest first, keyset-paged. */
    List<WorkflowInfo> workflows(WorkflowQuery query);

    /** A page of a workflow's nodes (with their states and parents) in job id order, after the given job id. */
    List<WorkflowNodeInfo> workflowNodes(long workflowId, long afterJobId, int limit);

    /**
     * Cancels a workflow: its waiting, scheduled and ready nodes finish as cancelled, and the cancellation of its
     * running LEASE nodes is requested (as {@link #cancel(long)}); dead nodes stay dead. Waiting nodes go
     * first, so that no parent's cancellation releases a dependant (under {@code RUN}) before it is cancelled.
     * An unknown workflow gives an all-zero result.
     */
    BulkCancelResult cancelWorkflow(long workflowId);

    /** A batch with its state, counts (read from its aggregate, whatever its size) and callbacks, if it exists. */
    Optional<BatchInfo> batch(long batchId);

    /** How many batches are in each state, for gauges. */
    Map<BatchState, Long> batchesByState();

    /** Batches by name and state, newest first, keyset-paged. */
    List<BatchInfo> batches(BatchQuery query);

    /** A page of a batch's live members in job id order, after the given job id (1 to 10,000). */
    List<BatchMemberInfo> batchMembers(long batchId, long afterJobId, int limit);

    /**
     * Cancels an open or running batch: no member can be added any more, its callbacks that have not fired never
     * will (but onComplete, once its running members finished, when it was opened with
     * {@code completeOnCancel(true)}), its waiting, scheduled and ready members finish as cancelled, and the
     * cancellation of its running LEASE members is requested; dead members stay dead. A batch that finished or does
     * not exist gives an all-zero result.
     */
    BulkCancelResult cancelBatch(long batchId);

    /**
     * The databases queues live in, each asked whether it answers, when more than one is configured
     * ({@code pgqueue.databases}); empty with one database.
     */
    default List<DatabaseStatus> databases() {
        return List.of();
    }
}
