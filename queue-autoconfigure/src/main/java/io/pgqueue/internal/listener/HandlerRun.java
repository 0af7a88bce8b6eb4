package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

import io.pgqueue.internal.persistence.ClaimedJob;
import org.jspecify.annotations.Nullable;

/**
 * One run of a handler on a claimed job (or on a batch, for a batch listener): the thread it runs on, so
 * that a cancellation or a timeout can interrupt exactly this run and never the job that thread runs next;
 * and the progress the handler reported, until the node writes it.
 */
final class HandlerRun {

    private final ClaimedJob job;

    private final boolean interruptOnCancel;

    private @Nullable Thread thread;

    private boolean finished;

    private boolean interruptedHere;

    private @Nullable ScheduledFuture<?> watchdog;

    private volatile boolean cancelRequested;

    private volatile boolean timedOut;

    private volatile @Nullable Progress progress;

    /** How long the handler may go on after it was interrupted for its timeout or cancellation. */
    private final Duration interruptGrace;

    /** When (System.nanoTime) the handler was first interrupted, if it was. */
    private long interruptedAt;

    private boolean interruptedOnce;

    private boolean reportedStuck;

    /** Progress reported and not written yet. */
    record Progress(short percent, @Nullable String message) {
    }

    HandlerRun(ClaimedJob job, boolean interruptOnCancel) {
        this(job, interruptOnCancel, Duration.ZERO);
    }

    HandlerRun(ClaimedJob job, boolean interruptOnCancel, Duration interruptGrace) {
        this.job = job;
        this.interruptOnCancel = interruptOnCancel;
        this.interruptGrace = interruptGrace;
    }

    ClaimedJob job() {
        return job;
    }

    /** Called on the worker thread before the handler runs; arms the timeout, if any. */
    synchronized void start(@Nullable Duration timeout) {
        thread = Thread.currentThread();
        if (timeout != null) {
            watchdog = Timeouts.schedule(this::timeOut, timeout);
        }
    }

    /**
     * Called on the worker thread once the handler returned: nothing interrupts it after this, and an
     * interruption this run made is cleared so that it does not hit the thread's next job.
     */
    synchronized void finish() {
        finished = true;
        if (watchdog != null) {
            watchdog.cancel(false);
        }
        if (interruptedHere) {
            Thread.interrupted();
        }
    }

    /** The job's cancellation was requested: tell the handler, and interrupt it unless this is a batch. */
    void requestCancel() {
        cancelRequested = true;
        if (interruptOnCancel) {
            interrupt();
        }
    }

    boolean cancelRequested() {
        return cancelRequested;
    }

    boolean timedOut() {
        return timedOut;
    }

    private void timeOut() {
        timedOut = true;
        interrupt();
    }

    private synchronized void interrupt() {
        if (thread != null && !finished) {
            interruptedHere = true;
            if (!interruptedOnce) {
                interruptedOnce = true;
                interruptedAt = System.nanoTime();
            }
            thread.interrupt();
        }
    }

    /**
     * Whether the handler was interrupted (timeout, cancellation) more than the grace period ago and still has
     * not returned: it ignores interrupts (a socket read without timeout, a long JDBC call). Its job's lease is
     * no longer renewed, so the job is rescued as any lost attempt.
     */
    /** True the first time it is asked about a stuck run: that run is reported once. */
    synchronized boolean reportStuckOnce() {
        if (reportedStuck) {
            return false;
        }
        reportedStuck = true;
        return true;
    }

    synchronized boolean stuck() {
        return !finished && interruptedOnce && System.nanoTime() - interruptedAt > interruptGrace.toNanos();
    }

    void reportProgress(int percent, @Nullable String message) {
        progress = new Progress((short) percent, message);
    }

    /** The progress reported since the last call, if any. */
    @Nullable Progress takeProgress() {
        Progress reported = progress;
        progress = null;
        return reported;
    }
}
