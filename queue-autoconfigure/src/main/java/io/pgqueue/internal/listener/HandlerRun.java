package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

import io.pgqueue.internal.lifecycle.ClaimedJob;
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

    /** Progress reported and not written yet. */
    record Progress(short percent, @Nullable String message) {
    }

    HandlerRun(ClaimedJob job, boolean interruptOnCancel) {
        this.job = job;
        this.interruptOnCancel = interruptOnCancel;
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
            thread.interrupt();
        }
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
