package io.pgqueue.support;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * A background task on its own daemon thread, started and stopped with the application context: the shape
 * shared by maintenance, the metrics refresh and the recurring-job scheduler. A failing run is logged and
 * retried at the next period; it never stops the task, not even when it ends in an {@link Error}: an executor
 * silently cancels a periodic task whose run threw, and the thread would live on doing nothing while
 * {@link #isRunning()} said true.
 */
public abstract class PeriodicLifecycle implements SmartLifecycle {

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    /** How long a stop lets a run end by itself before it cancels the run's statement. */
    private static final Duration CANCEL_AFTER = Duration.ofSeconds(1);

    private final Log logger = LogFactory.getLog(getClass());

    private final String threadName;

    private volatile ScheduledExecutorService scheduler;

    /** The task's thread, whose statement a stop cancels when it does not end by itself. */
    private volatile Thread thread;

    protected PeriodicLifecycle(String threadName) {
        this.threadName = threadName;
    }

    /** Called once at start: schedule the task's runs with {@link #every}. */
    protected abstract void schedule();

    /** Runs {@code task} every {@code period}, the first time after {@code initialDelay}. */
    protected void every(Duration period, Duration initialDelay, String what, Runnable task) {
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            }
            catch (RuntimeException ex) {
                logger.warn("pgqueue " + what + " failed (will retry): " + ex.getMessage());
            }
            catch (Throwable ex) {
                logger.error("pgqueue " + what + " failed with an error (will retry)", ex);
            }
        }, initialDelay.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
            Thread created = new Thread(runnable, threadName);
            created.setDaemon(true);
            thread = created;
            return created;
        });
        schedule();
    }

    /**
     * Stops the task and waits (boundedly) for a run in progress: the context closes the DataSource right
     * after, and a run cut off by that only logs a misleading failure. A run still busy after a second is waiting
     * on the database (a lock, a slow read under load), which an interrupt does not end: its statement is
     * cancelled, so that the node stops in about a second rather than after the stop timeout.
     */
    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            try {
                if (!scheduler.awaitTermination(CANCEL_AFTER.toMillis(), TimeUnit.MILLISECONDS) && thread != null) {
                    RunningStatements.cancel(thread);
                }
                if (!scheduler.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    logger.warn("pgqueue " + threadName + " still running after " + STOP_TIMEOUT.toSeconds()
                            + " s; leaving it behind");
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            scheduler = null;
        }
    }

    @Override
    public boolean isRunning() {
        return scheduler != null;
    }
}
