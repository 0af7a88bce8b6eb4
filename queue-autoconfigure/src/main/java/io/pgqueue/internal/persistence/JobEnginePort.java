package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.pgqueue.listener.RateLimit;
import org.jspecify.annotations.Nullable;

/**
 * What the listener engine and the node need of the job table: claims, acknowledgements, failures, snoozes,
 * cancellations of running jobs, leases, progress, release and the rescue of other nodes' jobs. One of the ports of the job table ({@link JobTable}), each implemented by a class of its own.
 */
public interface JobEnginePort {

    /**
     * Whether the transaction this thread holds on the queue's DataSource (a TRANSACTIONAL claim's) was aborted
     * by a failed statement, read from the driver without a round trip.
     */
    boolean transactionAborted();

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
    default Claim claimThrottled(ClaimRequest request, @Nullable Integer maxRunning, @Nullable RateLimit rate) {
        return claimThrottled(request, maxRunning, rate, null);
    }

    /** As {@link #claimThrottled(ClaimRequest, Integer, RateLimit)}, the claim a fair one when shares are given. */
    Claim claimThrottled(ClaimRequest request, @Nullable Integer maxRunning, @Nullable RateLimit rate,
            @Nullable FairShares shares);

    /**
     * {@link Transition#CLAIM_DELETE} in the caller's transaction (a Spring-managed one on the same
     * DataSource), at its top level, followed by a savepoint that the handlers' writes come after: the delete is
     * the acknowledgement, committed or rolled back with the handlers' writes, and a handler that succeeds runs
     * in no subtransaction of its own (the {@link Claim#undo()} says how to take the claim back). It promotes
     * nothing: rows promoted inside a handler's long transaction would be hidden from every other
     * worker until it commits ({@link #promoteDue(String)} runs before, in a transaction of its own).
     */
    Claim claimAndDelete(ClaimRequest request);

    /**
     * As {@link #claimLeased}, for a fair queue: the jobs are picked key by key in proportion to the keys'
     * weights, within each key's cap on running jobs (exact across the cluster), and the keys' passes move in
     * the same statement. The cursor is not used: a fair claim always looks at the keys with the lowest passes.
     */
    Claim claimFairLeased(ClaimRequest request, FairShares shares);

    /**
     * As {@link #claimAndDelete}, for a fair queue; the keys' passes move at the end of the transaction
     * ({@link #chargeFairness}), a key's cap is held as advisory slots until it ends.
     */
    Claim claimFairAndDelete(ClaimRequest request, FairShares shares);

    /**
     * Charges the keys of a fair TRANSACTIONAL claim with the jobs it took (a count of zero: found empty) and marks
     * those it left empty, in the claim's transaction, just before it commits. It waits for no other transaction's
     * charge: a key whose row another one holds is charged by a row of its own, folded into the pass later.
     *
     * @return the keys of {@code emptied} that may be reported as empty: all but those a statement was making a
     * job ready for (their rows held), which the claim leaves unmarked — claiming again at once would find them
     * empty again until that statement's transaction ends
     */
    List<String> chargeFairness(String queue, FairShares shares, java.util.Map<String, Integer> taken, List<String> emptied);

    /** {@link #promoteDue(String)} of a fair queue: the keys of the jobs made ready are activated. */
    int promoteDueFair(String queue);

    /**
     * Deactivates the queue's drained keys (found empty by a claim) that still have no ready or running job, in a
     * transaction of its own, after folding the charges TRANSACTIONAL claims left for its keys into their passes;
     * returns how many keys were looked at.
     */
    int sweepFairness(String queue);

    /**
     * Activates the keys of the queue that have ready jobs and are inactive (a safety net), after giving the
     * queue's ready jobs without a key the key {@code keylessJobsKey}; returns how many keys it activated.
     */
    int activateReadyKeys(String queue, String keylessJobsKey);

    /**
     * {@link Transition#COMPLETE} of the LEASE jobs this node still owns in the attempts given, as completed or,
     * when their cancellation was requested, as cancelled; with history on, each job's output (JSON text, or
     * null) is kept. Returns how many. The statement carries the cascades the jobs' claims decided (none for
     * plain jobs): with the {@link Transition.Cascade#WORKFLOW} and {@link Transition.Cascade#BATCH} cascades,
     * nodes' outputs are kept for their dependants (whatever history says), dependants whose last parent this was
     * become ready, batches count their members and fire the callbacks this decides, and the queues of the jobs
     * made ready are woken once it committed (by {@code Wakeups}, as for a send).
     */
    int complete(UUID node, List<Completion> jobs);

    /**
     * {@link #complete} of one plain job of a queue capped by {@code max-running} alone, then its claim
     * ({@link #claimThrottled}) with the room the job left, in one round trip and one transaction: the slot a
     * finished job frees is filled without an acknowledgement and a claim of their own. Returns the claim (the
     * completion is done whether it took a job or not); nothing is done when it throws.
     */
    Claim completeThenClaimCapped(UUID node, Completion done, ClaimRequest request, int maxRunning);

    /**
     * The cascades of TRANSACTIONAL nodes and members whose handlers succeeded, in their transaction (the claim
     * already deleted their rows), as by {@link #complete}: committed or rolled back with the handlers' writes
     * (nothing for plain jobs). With {@code releaseClaimSavepoint}, the same round trip first releases the claim's
     * savepoint, so that the cascades are written by the transaction itself rather than by a subtransaction.
     */
    void membersSucceeded(List<Completion> jobs, boolean releaseClaimSavepoint);

    /**
     * {@link Transition#FAIL} of a LEASE attempt, if the node still owns the job in that attempt; a job whose
     * cancellation was requested finishes as cancelled instead ({@link Transition#CANCEL_RUNNING}).
     */
    boolean fail(UUID node, FailureUpdate failure);

    /**
     * {@link Transition#FAIL_AFTER_ROLLBACK}: counts the rolled-back TRANSACTIONAL attempt and records it. With
     * an {@code undo} that rolls back, in the claim's transaction: first takes the claim back as the claim says
     * (the rollback to its savepoint undoes the handlers' writes; {@link Transition#CLAIM_RESTORE} puts the
     * claimed rows back when the claim came before that savepoint), then records the failure in the same round
     * trip, so that no other worker can take the job in between; the caller commits.
     */
    boolean failAfterRollback(FailureUpdate failure, ClaimUndo undo);

    /**
     * {@link Transition#SNOOZE} of a LEASE attempt, if the node still owns the job in that attempt: the job
     * runs again after the delay and the attempt does not count. A cancel-requested job finishes as cancelled.
     */
    default boolean snooze(UUID node, long id, int attempt, Duration delay) {
        return snooze(node, id, attempt, delay, Cascades.NODES_AND_MEMBERS);
    }

    /**
     * As {@link #snooze(UUID, long, int, Duration)}, by a statement with the cascades the job's claim decided
     * (for the cancel-requested case: a plain job's does without them).
     */
    boolean snooze(UUID node, long id, int attempt, Duration delay, Cascades cascades);

    /**
     * {@link Transition#SNOOZE_AFTER_ROLLBACK}: a TRANSACTIONAL attempt rolled back and put off, uncounted; with
     * an {@code undo} that rolls back, in the claim's transaction, as {@link #failAfterRollback}.
     */
    boolean snoozeAfterRollback(long id, int attempt, Duration delay, ClaimUndo undo);

    /** {@link Transition#CANCEL_RUNNING} of a LEASE attempt whose cancellation was requested. */
    boolean finishCancelled(UUID node, long id, int attempt);

    /** Those of the jobs this node runs whose cancellation was requested. */
    List<Long> cancelRequested(UUID node, long[] ids);

    /** Records the progress of LEASE jobs this node runs in those attempts. */
    void progress(UUID node, List<ProgressReport> reports);

    /**
     * {@link Transition#RELEASE} of unfinished jobs of the node at shutdown, uncounting the attempt; the
     * cancel-requested ones finish as cancelled.
     */
    int release(UUID node, long[] ids);

    /** Extends one job's lease, if the node still owns it in that attempt (no state change). */
    boolean extendLease(UUID node, long id, int attempt, Duration lease);

    /** Which of these queues have ready jobs and are not paused: one statement for all (idle polling). */
    List<String> readyQueues(String[] queues);

    /**
     * {@link Transition#RESCUE} of running jobs whose lease expired or whose node's heartbeat is older than
     * the timeout (forgetting those nodes); returns how many jobs were released or sent dead.
     */
    int rescue(Duration nodeTimeout);
}
