package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that interrupts handlers past their timeout, shared by every container: it only ever
 * interrupts a thread, so one is plenty, and it lives as long as the class (a daemon thread).
 */
final class Timeouts {

    private static final ScheduledThreadPoolExecutor EXECUTOR;

    static {
        EXECUTOR = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, "pgqueue-timeouts");
            thread.setDaemon(true);
            return thread;
        });
        EXECUTOR.setRemoveOnCancelPolicy(true);
    }

    private Timeouts() {
    }

    static ScheduledFuture<?> schedule(Runnable action, Duration after) {
        return EXECUTOR.schedule(action, after.toNanos(), TimeUnit.NANOSECONDS);
    }
}
