package io.pgqueue.internal.lifecycle;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.pgqueue.listener.RateLimit;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import org.jspecify.annotations.Nullable;

/**
 * Every change of a job row, one method per {@link Transition} (each one statement, or one inside the
 * caller's transaction), and the reads of job rows. The only code that writes the job table.
 */
public interface JobRepository {

    /**
     * {@link Transition#ENQUEUE}: inserts the jobs in one statement and returns the ids of the rows inserted;
     * jobs whose dedup key is already live in the queue are skipped. With {@code notify}, the same statement
     * sends a NOTIFY for the queue (delivered at commit) when it inserted anything.
     */
    List<Long> enqueue(String queue, List<NewJob> jobs, boolean notify);

    /**
     * {@link Transition#ENQUEUE} of a debounced job ({@link NewJob#debounceKey()}), or, while a job of its key
     * is still waiting for its quiet window, that job takes the new payload and options and waits again.
     */
    DebouncedSend enqueueDebounced(String queue, NewJob job);

    /**
     * What a debounced send did.
     *
     * @param jobId the job that will run
     * @param inserted whether it was inserted (else an earlier send's job was updated)
     */
    record DebouncedSend(long jobId, boolean inserted) {
    }

    /** {@link Transition#PROMOTE} of up to {@code limit} due scheduled jobs of any queue; returns how many. */
    int promoteDue(int limit);

    /** {@link Transition#PROMOTE} of a batch of the queue's due scheduled jobs; returns how many. */
    int promoteDue(String queue);

    /**
     * {@link Transition#PROMOTE} of the queue's due jobs, then {@link Transition#CLAIM_LEASE}: up to the limit
     * of ready jobs, leased to the node, which must be registered (a node whose row a rescue removed claims
     * nothing until its heartbeat registers it again). Its commit does not wait for the WAL flush: a claim
     * lost in a crash leaves the jobs ready again, which at-least-once delivery allows.
     */
    Claim claimLeased(ClaimRequest request);

    /**
     * As {@link #claimLeased}, for a queue with a cluster-wide cap on running jobs and/or a rate: claims of
     * one queue are serialised across the cluster for one short transaction that counts what is running and
     * started, claims at most what both allow and records the starts.
     */
    Claim claimThrottled(ClaimRequest request, @Nullable Integer maxRunning, @Nullable RateLimit rate);

    /**
     * {@link Transition#CLAIM_DELETE} in the caller's transaction (a Spring-managed one on the same
     * DataSource), after a savepoint: the delete is the acknowledgement, committed or rolled back with the
     * handler's writes. It
     * promotes nothing: rows promoted inside a handler's long transaction would be hidden from every other
     * worker until it commits ({@link #promoteDue(String)} runs before, in a transaction of its own).
     */
    Claim claimAndDelete(ClaimRequest request);

    /**
     * {@link Transition#COMPLETE} of the LEASE jobs this node still owns in the attempts given, as completed or,
     * when their cancellation was requested, as cancelled; with history on, each job's output (JSON text, or
     * null) is kept. Returns how many.
     */
    int complete(UUID node, long[] ids, int[] attempts, @Nullable String[] outputs);

    /**
     * {@link Transition#FAIL} of a LEASE attempt, if the node still owns the job in that attempt; a job whose
     * cancellation was requested finishes as cancelled instead ({@link Transition#CANCEL_RUNNING}).
     */
    boolean fail(UUID node, FailureUpdate failure);

    /**
     * {@link Transition#FAIL_AFTER_ROLLBACK}: counts the rolled-back TRANSACTIONAL attempt and records it. With
     * {@code undoClaim}, in the claim's transaction: first rolls back to the savepoint the claim set (undoing
     * the claim and the handler's writes), then records the failure in the same round trip, so that no other
     * worker can take the job in between; the caller commits.
     */
    boolean failAfterRollback(FailureUpdate failure, boolean undoClaim);

    /**
     * {@link Transition#SNOOZE} of a LEASE attempt, if the node still owns the job in that attempt: the job
     * runs again after the delay and the attempt does not count. A cancel-requested job finishes as cancelled.
     */
    boolean snooze(UUID node, long id, int attempt, Duration delay);

    /**
     * {@link Transition#SNOOZE_AFTER_ROLLBACK}: a TRANSACTIONAL attempt rolled back and put off, uncounted; with
     * {@code undoClaim}, in the claim's transaction, as {@link #failAfterRollback}.
     */
    boolean snoozeAfterRollback(long id, int attempt, Duration delay, boolean undoClaim);

    /** {@link Transition#CANCEL_RUNNING} of a LEASE attempt whose cancellation was requested. */
    boolean finishCancelled(UUID node, long id, int attempt);

    /**
     * {@link Transition#CANCEL} of the scheduled and ready jobs among the ids (not those a transaction holds);
     * for the running ones, the cancellation is requested.
     */
    Cancellation cancel(long[] ids);

    /** Those of the jobs this node runs whose cancellation was requested. */
    List<Long> cancelRequested(UUID node, long[] ids);

    /**
     * What {@link #cancel(long[])} did.
     *
     * @param cancelled ids of jobs finished as cancelled
     * @param requested ids of running jobs whose cancellation was requested
     */
    record Cancellation(Set<Long> cancelled, Set<Long> requested) {
    }

    /** Records the progress of LEASE jobs this node runs in those attempts. */
    void progress(UUID node, long[] ids, int[] attempts, short[] percents, @Nullable String[] messages);

    /** Whether finished jobs' outputs are kept (history is on); if not, handlers' return values are not written. */
    boolean keepsOutputs();

    /** Keeps a TRANSACTIONAL job's output in its history row (in the handler's transaction), when history is on. */
    void recordOutput(long id, String outputJson);

    /** Deletes up to {@code limit} expired dedup windows; returns how many. */
    int expireDedupWindows(int limit);

    /**
     * Analyzes the job table when its heap has grown to several times the size the planner's statistics
     * record (a new or emptied table filling up before autovacuum first visits it), so that cached plans of
     * the claims and acknowledgements are rebuilt for the table's real size instead of scanning it whole.
     * One node at a time; only where this user owns the table.
     * @return whether the table was analyzed
     */
    boolean refreshStatisticsIfGrown();

    /**
     * {@link Transition#RESCUE} of running jobs whose lease expired or whose node's heartbeat is older than
     * the timeout (forgetting those nodes); returns how many jobs were released or sent dead.
     */
    int rescue(Duration nodeTimeout);

    /**
     * {@link Transition#RELEASE} of unfinished jobs of the node at shutdown, uncounting the attempt; the
     * cancel-requested ones finish as cancelled.
     */
    int release(UUID node, long[] ids);

    /** Extends one job's lease, if the node still owns it in that attempt (no state change). */
    boolean extendLease(UUID node, long id, int attempt, Duration lease);

    /** Which of these queues have ready jobs and are not paused: one statement for all (idle polling). */
    List<String> readyQueues(String[] queues);

    /** {@link Transition#RETRY_DEAD} of the given dead jobs of the queue, or of all when {@code ids} is null. */
    int retryDead(String queue, long @Nullable [] ids);

    /** {@link Transition#PURGE} of up to {@code limit} dead jobs of the queue, of those given unless null. */
    int purgeDead(String queue, long @Nullable [] ids, int limit);

    /** {@link Transition#EXPIRE} of up to {@code limit} jobs dead for longer than {@code retention}. */
    int expireDead(Duration retention, int limit);

    /** Deletes up to {@code limit} history rows older than {@code retention}. */
    int expireHistory(Duration retention, int limit);

    /** The id of the live (not dead) job holding this dedup key, if any. */
    @Nullable Long findLiveByDedupKey(String queue, String dedupKey);

    /** A job by id: live from the job table, else finished from the history; null when neither has it. */
    @Nullable JobInfo job(long id);

    /** A page of jobs matching the query, newest first. */
    List<JobInfo> jobs(JobQuery query);

    /** A page of the queue's dead jobs, newest first. */
    /** A page of dead jobs; without content their payloads are null and their errors keep the first line. */
    List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content);
}
