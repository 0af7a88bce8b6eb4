package io.pgqueue.internal.listener;

import java.time.Duration;

import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.listener.WorkerThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What both delivery modes share: options, the wait between polls, start/stop state and error pacing.
 */
abstract class AbstractQueueListenerContainer implements QueueListenerContainer {

    /** Pause after a failed poll, doubling up to {@link #MAX_ERROR_BACKOFF} while the database is away. */
    private static final Duration MIN_ERROR_BACKOFF = Duration.ofMillis(100);

    private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(5);

    /** How long after a job's due time its container polls for it (clocks and recording latency). */
    private static final Duration DUE_MARGIN = Duration.ofMillis(50);

    protected final Log logger = LogFactory.getLog(getClass());

    protected final ContainerOptions options;

    protected final JobExecutor executor;

    protected final PollWaiter waiter = new PollWaiter();

    protected volatile boolean running;

    /** What killed one of the container's threads, if anything did. */
    private volatile @Nullable Throwable failure;

    private final java.util.concurrent.atomic.AtomicLong fatalErrors = new java.util.concurrent.atomic.AtomicLong();

    private volatile @Nullable Throwable lastFatal;

    private final IdleQueues idle;

    AbstractQueueListenerContainer(ContainerOptions options, JobExecutor executor, IdleQueues idle) {
        this.options = options;
        this.executor = executor;
        this.idle = idle;
    }

    @Override
    public String id() {
        return options.id();
    }

    @Override
    public String queue() {
        return options.queue();
    }

    @Override
    public ContainerOptions options() {
        return options;
    }

    /** Whether the container runs with all of its threads (false once one of them died). */
    @Override
    public boolean isRunning() {
        return running && failure == null;
    }

    @Override
    public final synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        doStart();
    }

    /** Starts the container's threads; {@link #running} is already true, so their loops run. */
    protected abstract void doStart();

    /** The claim strategy's start (a fair queue's keys made consistent); a failure is repeated later. */
    static void startStrategy(ClaimStrategy strategy) {
        try {
            strategy.started();
        }
        catch (RuntimeException ex) {
            // the idle safety sweep does the same work again
        }
    }

    @Override
    public final synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        waiter.wakeUp();
        doStop();
    }

    /** Waits for the threads to finish within the shutdown timeout; polling has already been told to stop. */
    protected abstract void doStop();

    @Override
    public void wakeUp() {
        waiter.wakeUp();
    }

    /**
     * After a poll: go again at once when it came back full or made scheduled jobs ready; wait a poll
     * interval when it found some; park with the node's idle poller when it found none.
     */
    protected void afterPoll(int requested, int claimed, long promoted) throws InterruptedException {
        if (claimed >= requested || promoted > 0 || !running) {
            return;
        }
        if (claimed > 0 || !idle.mayPark(this)) {
            waiter.await(options.pollInterval());
            return;
        }
        idle.park(this);
        try {
            waiter.await(IdleQueues.SAFETY_INTERVAL);
        }
        finally {
            idle.unpark(this);
        }
    }

    /**
     * A job this container ran comes back later (a retry after its backoff, a snooze): poll when it is due,
     * rather than waiting for maintenance to make it ready and the idle poller to find it.
     */
    protected void comesBack(JobExecutor.Outcome outcome) {
        Duration delay = null;
        if (outcome instanceof JobExecutor.Snoozed snoozed) {
            delay = snoozed.delay();
        }
        else if (outcome instanceof JobExecutor.Failure failure) {
            delay = failure.update().retryDelay();
        }
        if (delay != null) {
            // a little after: the database dated the job from when it recorded it, after this decision
            idle.wakeAfter(this, delay.plus(DUE_MARGIN));
        }
    }

    @Override
    public long fatalErrors() {
        return fatalErrors.get();
    }

    /** Counts and reports a run that ended in an error of the JVM; its failure is recorded by the caller. */
    protected void fatalError(JobExecutor.Failure failure) {
        if (lastFatal == failure.error()) {
            // the jobs of one batch share their run's error: one error, counted once
            return;
        }
        lastFatal = failure.error();
        fatalErrors.incrementAndGet();
        logger.error("Container '" + id() + "': the handler of job " + failure.job().id() + " ended in a fatal error; "
                + "its attempt is recorded as failed (a TRANSACTIONAL worker thread is replaced)", failure.error());
    }

    /** Logs a failed poll and waits before the next one; returns the next backoff. */
    protected Duration afterPollError(RuntimeException error, Duration backoff) throws InterruptedException {
        logger.warn("Container '" + id() + "' could not poll queue '" + queue() + "' (retrying in " + backoff.toMillis()
                + " ms): " + error.getMessage());
        waiter.pause(backoff);
        Duration next = backoff.multipliedBy(2);
        return (next.compareTo(MAX_ERROR_BACKOFF) > 0) ? MAX_ERROR_BACKOFF : next;
    }

    protected static Duration initialErrorBackoff() {
        return MIN_ERROR_BACKOFF;
    }

    /**
     * Container threads are not daemons: like a web server's, they keep a worker-only application alive until
     * its context is closed (which stops them). A thread that dies of something its loop does not handle (an
     * {@code Error} of a handler, a bug) marks the container as not running, which health reports, instead
     * of leaving it silently short of that thread.
     */
    protected Thread newThread(Runnable task, String suffix) {
        return new Thread(guarded(task), "pgqueue-" + id() + "-" + suffix);
    }

    /**
     * A thread for running handlers: a platform thread made as {@link #newThread}, or a virtual one when the
     * options ask for it (virtual threads are daemons; the container's pollers, platform threads, keep a
     * worker-only application alive).
     */
    protected Thread newWorkerThread(Runnable task, String suffix) {
        if (options.workerThreads() != WorkerThreads.VIRTUAL) {
            return newThread(task, suffix);
        }
        Thread thread = VirtualThreads.FACTORY.newThread(guarded(task));
        thread.setName("pgqueue-" + id() + "-" + suffix);
        return thread;
    }

    /** Runs the task; a throwable it lets out ends the thread, is logged once and marks the container broken. */
    private Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            }
            catch (Throwable ex) {
                // the thread ends here either way; say so once, loudly, and let health report it
                failure = ex;
                logger.error("Container '" + id() + "' is broken: its thread " + Thread.currentThread().getName()
                        + " died", ex);
            }
        };
    }

    /** Made on first use: Spring's virtual-thread factory cannot be created before Java 21. */
    private static final class VirtualThreads {

        static final java.util.concurrent.ThreadFactory FACTORY = new org.springframework.core.task.VirtualThreadTaskExecutor(
                "pgqueue-worker-")
            .getVirtualThreadFactory();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + options + "]";
    }
}
