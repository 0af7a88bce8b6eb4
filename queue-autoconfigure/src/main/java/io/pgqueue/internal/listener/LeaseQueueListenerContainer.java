package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.node.TrackedJobs;
import io.pgqueue.internal.persistence.Claim;
import io.pgqueue.internal.persistence.ClaimRequest;
import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.internal.persistence.Completion;
import io.pgqueue.internal.persistence.JobEnginePort;
import io.pgqueue.internal.persistence.ProgressReport;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.GroupFailurePolicy;
import io.pgqueue.listener.WorkerThreads;
import org.jspecify.annotations.Nullable;

/**
 * LEASE delivery: one poll thread claims as many jobs as there are free worker slots, plus the
 * {@linkplain ContainerOptions#prefetch() prefetch} (0 unless configured), with a lease, and commits; while
 * claims come back full (a backlog), the second poll thread claims alongside it, so that the claim round trip
 * does not cap throughput. Workers run the handler outside any transaction;
 * finished jobs are deleted through the {@link AckBatcher}, failed ones are rescheduled or sent dead. Every
 * completion and failure is conditional on this node still owning the job in that attempt.
 * <p>
 * A job that finds the container idle runs on the poll thread that claimed it: handing it to a parked worker
 * would cost a thread wake-up, whose latency on a busy machine reaches milliseconds (most of the pickup's
 * tail). That thread first hands polling to the other poll thread, so a long handler never holds up the
 * queue's next jobs.
 */
final class LeaseQueueListenerContainer extends AbstractQueueListenerContainer {

    private final JobEnginePort jobs;

    private final NodeRuntime node;

    /** Shortest wait for interrupted handlers to stop at shutdown. */
    private static final Duration MIN_INTERRUPT_GRACE = Duration.ofSeconds(2);

    /** The runs of the jobs claimed and not finished, by job id (a batch's jobs share its run). */
    private final Map<Long, HandlerRun> inFlight = new ConcurrentHashMap<>();


    private Semaphore slots;

    private WorkerPool workers;

    private volatile AckBatcher acks;

    private Thread poller;

    private Thread helper;

    /** The poll thread that polls now; the other claims only while claims come back full, or runs a handler. */
    private volatile @Nullable Thread polling;

    /**
     * What the last claim of a poll thread that handed over polling found: its successor waits as that thread
     * would have.
     */
    private volatile @Nullable Poll handedOver;

    /**
     * The poll thread that waits for its turn, while it does, and so may take polling over (each thread clears
     * only itself: the other may already stand by again when this one leaves its wait).
     */
    private final AtomicReference<@Nullable Thread> standingBy = new AtomicReference<>();

    /** Set while claims come back full; the poll thread that does not poll claims only then. */
    private volatile boolean backlog;

    private final PollWaiter backlogSignal = new PollWaiter();

    private final ClaimRequest claimRequest;

    private final ClaimPositions positions;

    private final ClaimStrategy strategy;

    /**
     * Whether a job may run on the poll thread that claimed it: not for a batch listener, nor beside a prefetch
     * (handlers could then outnumber the concurrency), nor when handlers run on virtual threads.
     */
    private final boolean runsOnPollThreads;

    /** Past the moment a rate's window opens, by the database's clock, before the next claim. */
    private static final Duration WINDOW_MARGIN = Duration.ofMillis(5);

    /**
     * Whether the queue has a cluster-wide cap ({@code max-running}) or caps per fairness key: a claim may then
     * come back short while jobs are ready, and room is made by a job that finishes.
     */
    private final boolean capped;

    /**
     * Whether a job's completion claims the next job in its place on its worker's thread: for a queue capped by
     * {@code max-running} alone (a rate's window or fairness keys need the throttled claim's transaction).
     */
    private final boolean refills;

    /** Wakes the queue's containers on other nodes: room under the cap was made here while they may wait for it. */
    private final Consumer<String> roomMade;

    /**
     * Whether the last claim stopped at the queue's cap, or this node alone holds it full: others may wait for
     * room, so the next job of this container to finish wakes them.
     */
    private volatile boolean capReached;

    LeaseQueueListenerContainer(ContainerOptions options, JobExecutor executor, JobEnginePort jobs, NodeRuntime node,
            IdleQueues idle, ClaimPositions positions, Consumer<String> roomMade) {
        super(options, executor, idle);
        this.roomMade = roomMade;
        this.positions = positions;
        this.jobs = jobs;
        this.node = node;
        this.claimRequest = new ClaimRequest(options.queue(), options.batchSize(), options.maxAttempts(),
                options.groupFailure() == GroupFailurePolicy.BLOCK, node.identity().id(),
                node.settings().leaseDuration().toMillis());
        this.strategy = ClaimStrategy.of(options, jobs);
        this.capped = options.maxRunning() != null || (options.fairness() != null
                && (options.fairness().maxRunningPerKey() != null || !options.fairness().maxRunning().isEmpty()));
        this.refills = options.maxRunning() != null && options.rate() == null && options.fairness() == null
                && !executor.isBatch();
        this.runsOnPollThreads = !executor.isBatch() && options.prefetch() == 0
                && options.workerThreads() != WorkerThreads.VIRTUAL;
    }

    @Override
    protected void doStart() {
        // prefetched jobs hold slots beyond the workers and wait in the pool's queue for a thread
        slots = new Semaphore(options.concurrency() + (executor.isBatch() ? 0 : options.prefetch()));
        AtomicInteger workerCount = new AtomicInteger();
        workers = new WorkerPool(options.concurrency(),
                (task) -> newWorkerThread(task, "worker-" + workerCount.incrementAndGet()));
        node.track(this, new Tracked());
        startStrategy(strategy);
        acks = new AckBatcher(jobs, node.identity().id(), "pgqueue-" + id() + "-acks", this::roomFreed);
        acks.start();
        poller = newThread(this::pollLoop, "poller-1");
        helper = newThread(this::pollLoop, "poller-2");
        polling = poller;
        // a restart begins with a claim, not with the wait a claim of the last run would have led to
        handedOver = null;
        poller.start();
        helper.start();
    }

    /**
     * Stops claiming and lets running handlers finish within the shutdown timeout; then interrupts the rest
     * and waits as long again (at least {@link #MIN_INTERRUPT_GRACE}) for them to stop. A job is given back (its attempt uncounted) only once its
     * handler has stopped; a handler still running keeps its job's lease, so no other node can run the job
     * while it does.
     */
    @Override
    protected void doStop() {
        Duration timeout = node.settings().shutdownTimeout();
        try {
            backlogSignal.wakeUp();
            // a poll thread may be running a handler: it ends once that handler returned
            long deadline = System.nanoTime() + timeout.toNanos();
            joinBy(poller, deadline);
            joinBy(helper, deadline);
            releaseUnstarted();
            workers.shutdown();
            if (!workers.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                    || poller.isAlive() || helper.isAlive()) {
                workers.shutdownNow();
                // a poll thread still alive runs a handler: interrupted as the workers' are
                poller.interrupt();
                helper.interrupt();
                // interrupted handlers record their outcome and give their jobs back before they end
                long grace = Math.max(timeout.toNanos(), MIN_INTERRUPT_GRACE.toNanos());
                long graceDeadline = System.nanoTime() + grace;
                workers.awaitTermination(grace, TimeUnit.NANOSECONDS);
                joinBy(poller, graceDeadline);
                joinBy(helper, graceDeadline);
            }
            acks.stop(timeout);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            workers.shutdownNow();
        }
        finally {
            if (inFlight.isEmpty()) {
                node.untrack(this);
            }
            else {
                logger.warn("Container '" + id() + "' stopped with " + inFlight.size() + " handler(s) still running; "
                        + "their jobs keep their leases and are rescued when those expire");
            }
        }
    }

    private static void joinBy(Thread thread, long deadlineNanos) throws InterruptedException {
        long millis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (millis > 0) {
            thread.join(millis);
        }
    }

    /**
     * Gives back jobs whose handlers the shutdown interrupted, from the worker whose handler just stopped:
     * however long that took, the job is released only now, and is never left behind.
     */
    private void releaseStopped(long[] ids) {
        try {
            int released = node.release(ids);
            logger.info("Container '" + id() + "' released " + released + " unfinished job(s) at shutdown");
        }
        catch (RuntimeException ex) {
            logger.warn("Container '" + id() + "' could not release " + ids.length + " unfinished job(s); they are "
                    + "rescued when their leases expire: " + ex.getMessage());
        }
    }

    /**
     * Gives back the jobs claimed that no worker has started (prefetched ones): stopping does not begin new
     * handlers.
     */
    private void releaseUnstarted() {
        List<Runnable> unstarted = workers.takeWaiting();
        List<Long> ids = new ArrayList<>();
        for (Runnable waiting : unstarted) {
            Dispatched dispatched = (Dispatched) waiting;
            for (ClaimedJob job : dispatched.jobs()) {
                finished(job, dispatched.handlerRun());
                ids.add(job.id());
            }
        }
        if (!unstarted.isEmpty()) {
            // one slot per dispatched run: a job, or a batch listener's batch
            slots.release(unstarted.size());
            releaseStopped(ids.stream().mapToLong(Long::longValue).toArray());
        }
    }

    /** The jobs of one run handed to the worker pool, which they may still wait in. */
    private record Dispatched(List<ClaimedJob> jobs, HandlerRun handlerRun, Runnable body) implements Runnable {

        @Override
        public void run() {
            body.run();
        }
    }

    /**
     * The loop of both poll threads. The one that polls claims whenever it is woken or its poll interval passed;
     * the other claims alongside it while claims come back full, and otherwise waits until polling is handed to
     * it.
     */
    private void pollLoop() {
        Duration errorBackoff = initialErrorBackoff();
        while (running) {
            try {
                boolean polls = polling == Thread.currentThread();
                if (!polls && !backlog) {
                    standBy();
                    continue;
                }
                Poll previous = polls ? handedOver : null;
                if (previous != null) {
                    handedOver = null;
                    afterPoll(previous);
                    continue;
                }
                if (!node.mayClaim()) {
                    // this node's heartbeat is stale: the others may already be rescuing what it holds
                    waiter.await(options.pollInterval());
                    continue;
                }
                int slotsTaken = takeSlots();
                if (slotsTaken == 0) {
                    continue;
                }
                int requested = executor.isBatch() ? options.batchSize() : slotsTaken;
                Claim claim;
                try {
                    claim = claim(requested);
                }
                catch (RuntimeException ex) {
                    slots.release(slotsTaken);
                    errorBackoff = afterPollError(ex, errorBackoff);
                    continue;
                }
                errorBackoff = initialErrorBackoff();
                // every slot it asked for came back filled: more jobs are probably waiting than one poll thread
                // can claim; a short claim ends the backlog
                boolean full = strategy.moreReady(claim, requested);
                if (full && !backlog) {
                    backlog = true;
                    backlogSignal.wakeUp();
                }
                else if (!full) {
                    backlog = false;
                }
                if (capped) {
                    // others may wait for room if this claim found the cap reached, or if this node alone fills it
                    Integer cap = options.maxRunning();
                    capReached = claim.throttle().capReached()
                            || (cap != null && inFlight.size() + claim.jobs().size() >= cap);
                }
                Poll poll = new Poll(requested, full ? requested : claim.jobs().size(), claim.promoted(),
                        claim.throttle());
                if (polls && !full && runsHereAfterHandingOver(claim, poll)) {
                    runOnPollThread(claim.jobs(), slotsTaken);
                    continue;
                }
                dispatch(claim.jobs(), slotsTaken);
                if (polls) {
                    afterPoll(poll);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** What a claim found, which decides how long its poll thread waits before the next one. */
    private record Poll(int requested, int claimed, long promoted, Claim.Throttle throttle) {
    }

    /**
     * After a claim the queue's cap (or a key's) cut short, the next claims when one of this container's jobs leaves
     * the running state (its acknowledgement committed, its failure recorded: {@link #roomFreed}), and after one the
     * rate cut short, when the rate's window opens: not a poll interval later. Room made by other nodes' jobs is
     * found by the next poll.
     */
    private void afterPoll(Poll poll) throws InterruptedException {
        Claim.Throttle throttle = poll.throttle();
        if (!throttle.limited() || poll.claimed() >= poll.requested() || !running) {
            afterPoll(poll.requested(), poll.claimed(), poll.promoted());
            return;
        }
        Duration wait = options.pollInterval();
        if (throttle.windowOpensIn() != null && throttle.windowOpensIn().plus(WINDOW_MARGIN).compareTo(wait) < 0) {
            wait = throttle.windowOpensIn().plus(WINDOW_MARGIN);
        }
        // a job that finished since the claim began has already woken the waiter: it returns at once then
        waiter.await(wait);
    }

    /**
     * A job of this container no longer runs in the database: wake the poll thread of a capped queue, which may be
     * waiting for that room (a wake-up during its claim is kept, so the room is not missed). An uncapped queue's
     * claims are never short for want of room: its poll thread is not disturbed.
     */
    private void roomFreed() {
        if (capped) {
            waiter.wakeUp();
        }
        if (capReached) {
            capReached = false;
            try {
                roomMade.accept(queue());
            }
            catch (RuntimeException ex) {
                // the others' next poll finds the room
            }
        }
    }

    /** Waits, not polling, until polling is handed to this thread, a backlog needs a second claimer, or stop. */
    private void standBy() throws InterruptedException {
        Thread self = Thread.currentThread();
        standingBy.set(self);
        try {
            if (polling != self && !backlog && running) {
                backlogSignal.await(options.pollInterval());
            }
        }
        finally {
            standingBy.compareAndSet(self, null);
        }
    }

    /**
     * Whether this claim's first job runs on this poll thread: only where {@link #runsOnPollThreads}, for one job
     * at a time on an idle container (no worker busy, none waiting), and only when the other poll thread stands
     * by, in which case polling is handed to it, with what this claim found, before this returns.
     */
    private boolean runsHereAfterHandingOver(Claim claim, Poll poll) {
        if (!runsOnPollThreads || claim.jobs().isEmpty() || !running || !workers.idle()
                || !standingBy.compareAndSet(other(), null)) {
            return false;
        }
        handedOver = poll;
        polling = other();
        backlogSignal.wakeUp();
        return true;
    }

    /** The poll thread that is not the caller. */
    private Thread other() {
        return (Thread.currentThread() == poller) ? helper : poller;
    }

    /** Runs the claim's first job on this thread and hands the others to the workers. */
    private void runOnPollThread(List<ClaimedJob> claimed, int slotsTaken) {
        HandlerRun run = startRun(claimed.get(0));
        dispatch(claimed.subList(1, claimed.size()), slotsTaken - 1);
        HandlerRun refill = runThenRefill(run);
        if (refill != null) {
            // a poll thread goes back to polling: the job claimed in its job's place goes to a worker, with its slot
            workers.execute(new Dispatched(List.of(refill.job()), refill, () -> runOne(refill)));
        }
    }

    private Claim claim(int requested) {
        ClaimPositions.Ticket ticket = positions.next(claimRequest.withLimit(requested));
        Claim claim = strategy.claim(ticket.request());
        positions.claimed(ticket, claim);
        strategy.afterClaim(claim);
        return claim;
    }

    /**
     * Waits until enough worker slots are free for a worthwhile claim (half a batch, at most half the
     * workers), then takes up to a batch of free ones, rounded down to a claim size ({@link ClaimSizes}); a
     * batch listener takes one slot per batch. Never more than the free slots: beyond the prefetch, no job
     * waits in memory for a worker.
     */
    private int takeSlots() throws InterruptedException {
        int threshold = executor.isBatch() ? 1 : Math.max(1, Math.min(options.batchSize(), options.concurrency()) / 2);
        if (!slots.tryAcquire(threshold, 100, TimeUnit.MILLISECONDS)) {
            return 0;
        }
        if (!running) {
            slots.release(threshold);
            return 0;
        }
        int taken = threshold;
        while (!executor.isBatch() && taken < options.batchSize() && slots.tryAcquire()) {
            taken++;
        }
        if (executor.isBatch()) {
            return taken;
        }
        // a claim of one of a few sizes: its statement is planned once; the slots over it are free again at once
        int size = ClaimSizes.floor(taken, options.batchSize());
        slots.release(taken - size);
        return size;
    }

    private void dispatch(List<ClaimedJob> jobs, int slotsTaken) {
        if (executor.isBatch()) {
            if (jobs.isEmpty()) {
                slots.release(slotsTaken);
            }
            else {
                // a batch is not interrupted for one of its jobs: a cancelled job of it finishes as cancelled
                HandlerRun run = new HandlerRun(jobs.get(0), false, node.settings().interruptGrace());
                jobs.forEach((job) -> inFlight.put(job.id(), run));
                workers.execute(new Dispatched(jobs, run, () -> runBatch(jobs, run)));
            }
            return;
        }
        slots.release(slotsTaken - jobs.size());
        for (ClaimedJob job : jobs) {
            HandlerRun run = startRun(job);
            workers.execute(new Dispatched(List.of(job), run, () -> runOne(run)));
        }
    }

    /** The run of one claimed job, tracked from now on (its lease renewed) until it finished. */
    private HandlerRun startRun(ClaimedJob job) {
        HandlerRun run = new HandlerRun(job, true, node.settings().interruptGrace());
        inFlight.put(job.id(), run);
        return run;
    }

    @Override
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public int stuckRuns() {
        return (int) inFlight.values().stream().distinct().filter(HandlerRun::stuck).count();
    }

    /** Running with all of its threads, the acknowledgement flusher included. */
    @Override
    public boolean isRunning() {
        return super.isRunning() && acks != null && acks.isAlive();
    }

    /** Runs a job and, on a queue whose cap refills on this thread, each job its completion claimed after it. */
    private void runOne(HandlerRun run) {
        HandlerRun next = run;
        while (next != null) {
            next = runThenRefill(next);
        }
    }

    /** Runs a job; returns the job its completion claimed in its place, which keeps its worker slot, or null. */
    private @Nullable HandlerRun runThenRefill(HandlerRun run) {
        ClaimedJob job = run.job();
        boolean acknowledged = false;
        ClaimedJob refill = null;
        try {
            JobExecutor.Outcome outcome = executor.run(run,
                    (claimed, duration) -> node.extendLease(claimed.id(), claimed.attempt(), duration));
            forgetInterruption();
            if (outcome instanceof JobExecutor.Succeeded succeeded) {
                // not while this node's heartbeat is stale: the others may be rescuing what it holds (as the poll loop)
                Claim refilled = (refills && !job.cascades().any() && running && node.mayClaim())
                        ? completeThenClaim(job, succeeded) : null;
                if (refilled == null) {
                    acks.acknowledge(job, succeeded.outputJson());
                }
                else if (!refilled.jobs().isEmpty()) {
                    refill = refilled.jobs().get(0);
                }
                acknowledged = refilled == null || refill != null;
            }
            else if (outcome instanceof JobExecutor.Snoozed snoozed) {
                record("snooze", job, () -> jobs.snooze(node.identity().id(), job.id(), job.attempt(), snoozed.delay(),
                        job.cascades()));
                comesBack(snoozed);
            }
            else if (outcome instanceof JobExecutor.Cancelled) {
                record("cancellation", job, () -> jobs.finishCancelled(node.identity().id(), job.id(), job.attempt()));
            }
            else if (outcome instanceof JobExecutor.Failure failure) {
                if (!running && failure.interrupted()) {
                    releaseStopped(new long[] { job.id() });
                }
                else {
                    recordFailure(failure);
                }
            }
        }
        finally {
            finished(job, run);
            if (refill == null) {
                slots.release();
            }
            if (!acknowledged) {
                // its failure, snooze or cancellation is recorded (or its completion committed and claimed nothing):
                // it no longer counts against the queue's cap
                roomFreed();
            }
        }
        if (refill != null && !running) {
            // claimed as the container stopped: given back, its attempt uncounted, not begun
            slots.release();
            releaseStopped(new long[] { refill.id() });
            return null;
        }
        return (refill != null) ? startRun(refill) : null;
    }

    /**
     * Completes a job of a queue capped by {@code max-running} alone and claims one in its place in the same round
     * trip, on this worker thread: the slot is filled again without waiting for an acknowledgement, then for the
     * poll thread's claim (a queue with max-running 4 and 10 ms jobs ran at 0.8 of its pace that way). Returns
     * null when the round trip failed, which did nothing: the acknowledgement is then left to the batcher, which
     * retries it.
     */
    private @Nullable Claim completeThenClaim(ClaimedJob job, JobExecutor.Succeeded succeeded) {
        try {
            Integer cap = options.maxRunning();
            return jobs.completeThenClaimCapped(node.identity().id(), Completion.of(job, succeeded.outputJson()),
                    claimRequest, cap);
        }
        catch (RuntimeException ex) {
            logger.debug("Completing job " + job.id() + " and claiming in its place failed; acknowledging it alone", ex);
            return null;
        }
    }

    /**
     * Clears an interruption the handler left on its thread (its own, or a stop's that it caught and passed on):
     * what it did is recorded either way (which of its exceptions the outcome holds says whether it stopped for
     * it), and an interrupted thread could not queue the acknowledgement of its success. A stopping container's
     * threads end after the recording anyway: workers as their pool shuts down, poll threads as they loop.
     */
    private static void forgetInterruption() {
        Thread.interrupted();
    }

    /** Records an outcome other than success or failure; a job this node lost is left to its new owner. */
    private void record(String what, ClaimedJob job, java.util.function.BooleanSupplier statement) {
        try {
            if (!statement.getAsBoolean()) {
                logger.info("The " + what + " of job " + job.id() + " came after this node lost it (lease expired or "
                        + "node rescued); its new owner decides");
            }
        }
        catch (RuntimeException ex) {
            logger.warn("Could not record the " + what + " of job " + job.id() + "; it will be rescued when its lease "
                    + "expires: " + ex.getMessage());
        }
    }

    private void runBatch(List<ClaimedJob> jobs, HandlerRun run) {
        try {
            List<JobExecutor.Failure> failures = executor.runBatch(jobs, run);
            forgetInterruption();
            for (ClaimedJob job : jobs) {
                if (failures.stream().noneMatch((failure) -> failure.job().id() == job.id())) {
                    acks.acknowledge(job, null);
                }
            }
            List<JobExecutor.Failure> recorded = new ArrayList<>();
            List<Long> stopped = new ArrayList<>();
            for (JobExecutor.Failure failure : failures) {
                if (!running && failure.interrupted()) {
                    stopped.add(failure.job().id());
                }
                else {
                    recorded.add(failure);
                }
            }
            recorded.forEach(this::recordFailure);
            if (!stopped.isEmpty()) {
                releaseStopped(stopped.stream().mapToLong(Long::longValue).toArray());
            }
        }
        finally {
            jobs.forEach((job) -> finished(job, run));
            slots.release();
            roomFreed();
        }
    }

    /**
     * Records a failed attempt. After a fatal error the pool's thread carries on: no transaction was open, and
     * the handler's stack is unwound.
     */
    private void recordFailure(JobExecutor.Failure failure) {
        record("failure", failure.job(), () -> jobs.fail(node.identity().id(), failure.update()));
        comesBack(failure);
        if (failure.fatal()) {
            fatalError(failure);
        }
    }

    /**
     * Forgets a finished run. Only its own entry: a job rescued from a stuck run may already run again here
     * under the same id, in a newer attempt, whose lease must go on being renewed.
     */
    private void finished(ClaimedJob job, HandlerRun run) {
        inFlight.remove(job.id(), run);
    }

    /** This container's running jobs as the node's heartbeat sees them. */
    private final class Tracked implements TrackedJobs {

        /**
         * The jobs whose leases the heartbeat renews: those whose acknowledgement is pending, and every running
         * one but those whose handler is stuck
         * (interrupted for its timeout or cancellation longer than the grace period ago): their leases run out,
         * and the job is rescued like any lost attempt, or finished as cancelled.
         */
        @Override
        public Collection<Long> ids() {
            Collection<Long> finishing = (acks != null) ? acks.unacknowledged() : List.of();
            List<Long> renewed = new ArrayList<>(inFlight.size() + finishing.size());
            // finished, their acknowledgement not yet committed: still this node's to finish
            renewed.addAll(finishing);
            inFlight.forEach((id, run) -> {
                if (!run.stuck()) {
                    renewed.add(id);
                }
                else if (run.reportStuckOnce()) {
                    logger.warn("The handler of job " + id + " of queue '" + queue() + "' ignored its interruption "
                            + "(timeout or cancellation) past the grace period; its lease is no longer renewed and the "
                            + "job will be rescued when it expires");
                }
            });
            return renewed;
        }

        @Override
        public void cancellationRequested(long jobId) {
            HandlerRun run = inFlight.get(jobId);
            if (run != null) {
                logger.info("Cancelling job " + jobId + " of queue '" + queue() + "' at its cancellation's request");
                run.requestCancel();
            }
        }

        @Override
        public List<ProgressReport> takeProgress() {
            List<ProgressReport> reports = new ArrayList<>();
            inFlight.forEach((id, run) -> {
                HandlerRun.Progress progress = (run.job().id() == id) ? run.takeProgress() : null;
                if (progress != null) {
                    reports.add(new ProgressReport(id, run.job().attempt(), progress.percent(), progress.message()));
                }
            });
            return reports;
        }
    }
}
