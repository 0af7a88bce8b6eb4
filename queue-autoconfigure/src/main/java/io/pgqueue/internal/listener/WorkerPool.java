package io.pgqueue.internal.listener;

import java.util.ArrayList;
import java.util.List;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs jobs on up to {@code size} threads, waking one more thread at a time only while jobs are waiting.
 * <p>
 * Handing every job to its own parked thread costs a wake-up (a system call and a context switch) per job,
 * which for short handlers costs more than the handler and, on a small machine, takes CPU from the
 * database. Here a runner drains the queue in a loop and asks for one helper at a time, the next only once
 * the previous one has started: short jobs run on a few threads with few wake-ups, while slow jobs still
 * spread to every thread within a few wake-up latencies.
 */
final class WorkerPool {

    private final int size;

    private final ThreadPoolExecutor threads;

    private final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    /** Runners submitted and not yet finished. */
    private final AtomicInteger runners = new AtomicInteger();

    /** A runner was asked for and has not started yet. */
    private final AtomicBoolean helperOnItsWay = new AtomicBoolean();

    WorkerPool(int size, ThreadFactory threadFactory) {
        this.size = size;
        this.threads = new ThreadPoolExecutor(size, size, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                threadFactory);
    }

    /** Whether no job runs or waits here now. */
    boolean idle() {
        return runners.get() == 0 && waiting.isEmpty();
    }

    void execute(Runnable job) {
        waiting.add(job);
        askForHelper();
    }

    /** Lets queued and running jobs finish; accepts no new ones. */
    void shutdown() {
        threads.shutdown();
    }

    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return threads.awaitTermination(timeout, unit);
    }

    /** Removes and returns the jobs that wait for a thread and have not started. */
    List<Runnable> takeWaiting() {
        List<Runnable> taken = new ArrayList<>();
        Runnable job;
        while ((job = waiting.poll()) != null) {
            taken.add(job);
        }
        return taken;
    }

    /** Interrupts running jobs and drops the waiting ones. */
    void shutdownNow() {
        waiting.clear();
        threads.shutdownNow();
    }

    private void askForHelper() {
        // without jobs waiting, or with a helper already asked for (it will find them), there is nothing to do
        while (!waiting.isEmpty() && helperOnItsWay.compareAndSet(false, true)) {
            if (runners.incrementAndGet() <= size) {
                try {
                    threads.execute(this::run);
                }
                catch (RejectedExecutionException ex) {
                    // shutting down: the runners still alive drain what was accepted before
                    runners.decrementAndGet();
                    helperOnItsWay.set(false);
                }
                return;
            }
            runners.decrementAndGet();
            helperOnItsWay.set(false);
            if (runners.get() >= size) {
                // every runner is busy and takes the job when it finishes its current one
                return;
            }
            // a runner left meanwhile, and its own call lost the race for the flag to this one: look again
        }
    }

    private void run() {
        helperOnItsWay.set(false);
        try {
            Runnable job;
            while (!Thread.currentThread().isInterrupted() && (job = waiting.poll()) != null) {
                askForHelper();
                job.run();
            }
        }
        finally {
            runners.decrementAndGet();
            // a job queued while this runner was leaving, when all runners counted as busy
            askForHelper();
        }
    }
}
