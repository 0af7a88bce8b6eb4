package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.pgqueue.internal.persistence.Claim;
import io.pgqueue.internal.persistence.ClaimRequest;
import io.pgqueue.internal.persistence.ClaimUndo;
import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.internal.persistence.Completion;
import io.pgqueue.internal.persistence.HistoryRepository;
import io.pgqueue.internal.persistence.JobEnginePort;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.GroupFailurePolicy;

import org.springframework.transaction.support.TransactionTemplate;

/**
 * TRANSACTIONAL delivery: each of {@code concurrency} workers loops over one transaction that deletes up to
 * a batch of ready jobs, runs the listener on them and commits, so the listener's own writes on the same
 * DataSource commit exactly with the acknowledgement. The claim runs at the transaction's top level and sets a
 * savepoint after it, so handlers that succeed run in no subtransaction of their own. If a job fails or
 * snoozes, the transaction rolls back to that savepoint (none of the handlers' writes remain), puts the claimed
 * rows back (every job of the batch is ready again), records the failure or snooze and commits that.
 */
final class TransactionalQueueListenerContainer extends AbstractQueueListenerContainer {

    private final JobEnginePort jobs;

    private final ClaimRequest claimRequest;

    private final TransactionTemplate transactions;

    private final Duration shutdownTimeout;

    private final List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final AtomicInteger workerNumbers = new AtomicInteger();

    /** Jobs claimed by transactions that have not ended yet. */
    private final AtomicInteger inFlight = new AtomicInteger();

    /**
     * Each worker's handler run in progress, for health to find stuck ones: a slot per worker, written by that
     * worker alone, where a set shared by the workers took two concurrent updates per job.
     */
    private final List<AtomicReference<HandlerRun>> runs = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final Duration interruptGrace;

    private final HistoryRepository history;

    private final ClaimPositions positions;

    private final ClaimStrategy strategy;

    TransactionalQueueListenerContainer(ContainerOptions options, JobExecutor executor, JobEnginePort jobs,
            HistoryRepository history, TransactionTemplate transactions, Duration shutdownTimeout, Duration interruptGrace,
            IdleQueues idle, ClaimPositions positions) {
        super(options, executor, idle);
        this.positions = positions;
        this.jobs = jobs;
        this.history = history;
        this.claimRequest = new ClaimRequest(options.queue(), options.batchSize(), options.maxAttempts(),
                options.groupFailure() == GroupFailurePolicy.BLOCK, null, 0);
        this.strategy = ClaimStrategy.of(options, jobs);
        this.transactions = transactions;
        this.shutdownTimeout = shutdownTimeout;
        this.interruptGrace = interruptGrace;
    }

    /**
     * Runs in progress past their timeout plus the grace period. A TRANSACTIONAL run holds its transaction and
     * its rows whatever it does: nothing but its return releases them, so health is all that can tell.
     */
    @Override
    public int stuckRuns() {
        return (int) runs.stream().map(AtomicReference::get).filter((run) -> run != null && run.stuck()).count();
    }

    private static <T> T tracked(AtomicReference<HandlerRun> slot, HandlerRun run,
            java.util.function.Function<HandlerRun, T> work) {
        slot.set(run);
        try {
            return work.apply(run);
        }
        finally {
            slot.set(null);
        }
    }

    @Override
    protected void doStart() {
        startStrategy(strategy);
        for (int i = 1; i <= options.concurrency(); i++) {
            startWorker();
        }
    }

    private void startWorker() {
        Thread worker = newWorkerThread(this::workLoop, "worker-" + workerNumbers.incrementAndGet());
        workers.add(worker);
        worker.start();
    }

    @Override
    protected void doStop() {
        long deadline = System.nanoTime() + shutdownTimeout.toNanos();
        try {
            for (Thread worker : workers) {
                worker.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        // a handler still running holds an open transaction: interrupting it lets that roll back, and its
        // jobs are ready again at once
        workers.stream().filter(Thread::isAlive).forEach(Thread::interrupt);
        workers.clear();
    }

    @Override
    public int inFlight() {
        return inFlight.get();
    }

    private void workLoop() {
        AtomicReference<HandlerRun> slot = new AtomicReference<>();
        runs.add(slot);
        try {
            workLoop(slot);
        }
        finally {
            runs.remove(slot);
        }
    }

    private void workLoop(AtomicReference<HandlerRun> slot) {
        Duration errorBackoff = initialErrorBackoff();
        boolean lastClaimFull = false;
        while (running) {
            try {
                // due jobs become ready in a short transaction of their own, visible to every worker; under a
                // backlog (full claims) maintenance promotes them instead
                long promoted = 0;
                AtomicReference<List<ClaimedJob>> succeeded = new AtomicReference<>();
                AtomicReference<List<JobExecutor.Outcome>> setbacks = new AtomicReference<>(List.of());
                Batch batch;
                try {
                    promoted = lastClaimFull ? 0 : strategy.promoteDue();
                    batch = transactions.execute((status) -> {
                        long claimedAt = System.nanoTime();
                        ClaimPositions.Ticket ticket = positions.next(claimRequest);
                        Claim claim = strategy.claim(ticket.request());
                        positions.claimed(ticket, claim);
                        Handled handled;
                        inFlight.addAndGet(claim.jobs().size());
                        try {
                            handled = run(claim.jobs(), slot, claimedAt);
                        }
                        finally {
                            inFlight.addAndGet(-claim.jobs().size());
                        }
                        List<JobExecutor.Outcome> failures = handled.failures();
                        if (failures.isEmpty()) {
                            // from here a failed statement (outputs, cascades, the commit) fails these attempts
                            succeeded.set(claim.jobs());
                            afterHandlers(handled);
                            return new Batch(strategy.beforeCommit(claim, true), List.of());
                        }
                        setbacks.set(failures);
                        if (!recordInTransaction(failures, claim.undo())) {
                            status.setRollbackOnly();
                            return new Batch(claim, failures);
                        }
                        return new Batch(strategy.beforeCommit(claim, false), List.of());
                    });
                }
                catch (RuntimeException ex) {
                    // recorded in a transaction that did not commit (e.g. a handler's own @Transactional code
                    // marked it rollback-only): record them again now that the jobs are back
                    setbacks.get().forEach(this::recordSetback);
                    List<ClaimedJob> uncommitted = succeeded.get();
                    if (uncommitted != null && !uncommitted.isEmpty()) {
                        // the handlers returned but a statement after them (outputs, cascades) or the commit
                        // failed (a deferred constraint, a lost connection): their attempts failed like any other
                        uncommitted.forEach((job) -> recordFailure(executor.failed(job, ex)));
                        errorBackoff = initialErrorBackoff();
                    }
                    else {
                        errorBackoff = afterPollError(ex, errorBackoff);
                    }
                    lastClaimFull = false;
                    continue;
                }
                errorBackoff = initialErrorBackoff();
                if (replacedAfterFatalError(setbacks.get())) {
                    return;
                }
                if (batch != null) {
                    batch.failures().forEach(this::recordSetback);
                    strategy.afterClaim(batch.claim());
                    lastClaimFull = strategy.moreReady(batch.claim(), options.batchSize());
                    afterPoll(options.batchSize(), lastClaimFull ? options.batchSize() : batch.claim().jobs().size(),
                            promoted);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * What the handlers of a claim did: the outcomes that must roll the transaction back (of a batch listener: all
     * its failures; of single-job listeners: the first failed or snoozed job), else the succeeded jobs whose
     * outputs and cascades are written after the handlers.
     */
    private record Handled(List<JobExecutor.Outcome> failures, List<JobExecutor.Succeeded> withOutputs,
            List<JobExecutor.Succeeded> cascading, boolean batchListener, List<LateFinish> late) {

        static final Handled NOTHING = new Handled(List.of(), List.of(), List.of(), false, List.of());

        static Handled failed(List<? extends JobExecutor.Outcome> failures) {
            return new Handled(List.copyOf(failures), List.of(), List.of(), false, List.of());
        }
    }

    /**
     * A succeeded job whose handler finished a second or more after its claim's transaction began, when its
     * history row was written: that row is dated again at the finish.
     */
    private record LateFinish(long id, long afterMicros) {

        /** Later than this, a history row dated at the claim is dated again (sooner, it is left as written). */
        static final long LATE_MICROS = 1_000_000;

        /**
         * Adds the job if it finished late. {@code claimedAt} was read before the transaction's first statement
         * (whose arrival PostgreSQL takes as {@code now()}) and the microseconds are rounded up, so the new date
         * is never before the handler's end.
         */
        static void add(List<LateFinish> late, ClaimedJob job, long claimedAt) {
            long afterMicros = (System.nanoTime() - claimedAt + 999) / 1000;
            if (afterMicros >= LATE_MICROS) {
                late.add(new LateFinish(job.id(), afterMicros));
            }
        }
    }

    /** Runs the claimed jobs' handlers in the open transaction, begun at {@code claimedAt} (nanoTime). */
    private Handled run(List<ClaimedJob> jobs, AtomicReference<HandlerRun> slot, long claimedAt) {
        if (jobs.isEmpty()) {
            return Handled.NOTHING;
        }
        if (executor.isBatch()) {
            HandlerRun batchRun = new HandlerRun(jobs.get(0), false, interruptGrace);
            List<JobExecutor.Failure> failures = tracked(slot, batchRun, (run) -> executor.runBatch(jobs, run));
            if (!failures.isEmpty()) {
                return Handled.failed(failures);
            }
            List<LateFinish> late = new ArrayList<>();
            jobs.forEach((job) -> LateFinish.add(late, job, claimedAt));
            return new Handled(List.of(), List.of(), jobs.stream().filter((job) -> job.cascades().any())
                .map((job) -> new JobExecutor.Succeeded(job, null)).toList(), true, late);
        }
        List<JobExecutor.Succeeded> nodes = new ArrayList<>();
        List<JobExecutor.Succeeded> withOutputs = new ArrayList<>();
        List<LateFinish> late = new ArrayList<>();
        for (ClaimedJob job : jobs) {
            JobExecutor.Outcome outcome = tracked(slot, new HandlerRun(job, false, interruptGrace),
                    (run) -> executor.run(run, JobContextImpl.LeaseExtender.NONE));
            if (outcome instanceof JobExecutor.Failure || outcome instanceof JobExecutor.Snoozed) {
                // the rest of the batch rolls back with it and runs again later, uncounted
                return Handled.failed(List.of(outcome));
            }
            if (outcome instanceof JobExecutor.Succeeded succeeded) {
                LateFinish.add(late, job, claimedAt);
                if (succeeded.outputJson() != null) {
                    withOutputs.add(succeeded);
                }
                if (job.cascades().any()) {
                    nodes.add(succeeded);
                }
            }
        }
        return new Handled(List.of(), withOutputs, nodes, false, late);
    }

    /**
     * The statements after the handlers that succeeded: their outputs, then their cascades, then the dates of
     * the history rows of jobs that finished late.
     */
    private void afterHandlers(Handled handled) {
        if (handled.batchListener()) {
            membersSucceeded(handled.cascading(), true);
        }
        else {
            boolean released = history.recordOutputs(
                    handled.withOutputs().stream().mapToLong((succeeded) -> succeeded.job().id()).toArray(),
                    handled.withOutputs().stream().map(JobExecutor.Succeeded::outputJson).toArray(String[]::new));
            membersSucceeded(handled.cascading(), !released);
        }
        if (!handled.late().isEmpty()) {
            history.redate(handled.late().stream().mapToLong(LateFinish::id).toArray(),
                    handled.late().stream().mapToLong(LateFinish::afterMicros).toArray());
        }
    }

    /**
     * Releases the dependants of the workflow nodes and counts the batch members whose handlers succeeded, last
     * in their transaction: the dependants' rows and the batches' shards stay locked only from here to the
     * commit, and commit (or roll back) with the handlers' writes. Unless an earlier statement of the batch
     * released it, the claim's savepoint is released first: nothing can roll back to it any more, and the
     * cascades are then written by the transaction itself.
     */
    private void membersSucceeded(List<JobExecutor.Succeeded> members, boolean releaseClaimSavepoint) {
        if (members.isEmpty()) {
            return;
        }
        jobs.membersSucceeded(members.stream()
            .map((member) -> Completion.of(member.job(), member.outputJson()))
            .toList(), releaseClaimSavepoint);
    }

    /**
     * Records why jobs did not complete inside the claim's transaction, which then commits: the claim and the
     * handlers' writes are rolled back to the claim's savepoint in the same round trip as the first record,
     * so that no other worker takes a job back before its failure or snooze is written (a retry never runs
     * before its backoff). Returns false if that could not be done (the connection broke, say); the
     * transaction then rolls back and the records are written after it.
     */
    private boolean recordInTransaction(List<JobExecutor.Outcome> setbacks, ClaimUndo claimUndo) {
        try {
            ClaimUndo undo = claimUndo;
            for (JobExecutor.Outcome outcome : setbacks) {
                if (outcome instanceof JobExecutor.Snoozed snoozed) {
                    jobs.snoozeAfterRollback(snoozed.job().id(), snoozed.job().attempt(), snoozed.delay(), undo);
                }
                else if (outcome instanceof JobExecutor.Failure failure) {
                    jobs.failAfterRollback(failure.update(), undo);
                }
                undo = ClaimUndo.NONE;
            }
            setbacks.forEach(this::comesBack);
            return true;
        }
        catch (RuntimeException ex) {
            logger.warn("Could not record " + setbacks.size() + " failed or snoozed job(s) in their transaction; "
                    + "recording them after it: " + ex.getMessage());
            return false;
        }
    }

    /** Records, once its transaction rolled back, why a job did not complete. */
    private void recordSetback(JobExecutor.Outcome outcome) {
        if (outcome instanceof JobExecutor.Snoozed snoozed) {
            comesBack(snoozed);
            try {
                jobs.snoozeAfterRollback(snoozed.job().id(), snoozed.job().attempt(), snoozed.delay(), ClaimUndo.NONE);
            }
            catch (RuntimeException ex) {
                logger.warn("Could not record the snooze of job " + snoozed.job().id()
                        + "; it is ready again and will run again: " + ex.getMessage());
            }
        }
        else if (outcome instanceof JobExecutor.Failure failure) {
            recordFailure(failure);
        }
    }

    /**
     * Records a failed attempt once its transaction rolled back: the fallback when it could not be recorded
     * inside that transaction. Between that rollback and this statement the job is ready, and another worker
     * may claim and run it at once, without its backoff (its attempt is then counted by whichever recording
     * matches).
     */
    private void recordFailure(JobExecutor.Failure failure) {
        comesBack(failure);
        try {
            jobs.failAfterRollback(failure.update(), ClaimUndo.NONE);
        }
        catch (RuntimeException ex) {
            logger.warn("Could not record the failure of job " + failure.job().id()
                    + "; it is ready again and will be retried: " + ex.getMessage());
        }
    }

    private record Batch(Claim claim, List<JobExecutor.Outcome> failures) {
    }

    /**
     * After a handler ended in an error of the JVM, whose failure was recorded like any other (the handler's
     * writes rolled back to the claim's savepoint in the same transaction, so no worker takes the job before
     * its attempt is counted): a fresh thread takes this worker's place. Returns whether this one must end.
     */
    private boolean replacedAfterFatalError(List<JobExecutor.Outcome> setbacks) {
        List<JobExecutor.Failure> fatal = setbacks.stream()
            .filter((outcome) -> outcome instanceof JobExecutor.Failure failure && failure.fatal())
            .map(JobExecutor.Failure.class::cast)
            .toList();
        if (fatal.isEmpty()) {
            return false;
        }
        fatal.forEach(this::fatalError);
        workers.remove(Thread.currentThread());
        if (running) {
            startWorker();
        }
        return true;
    }
}
