package io.pgqueue.maintenance;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.store.MaintenanceStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Periodic, cluster-safe upkeep on every node: promotes due scheduled jobs of all queues (so counts move
 * from scheduled to ready as time passes even for queues nobody consumes), folds counter deltas, and now
 * and then reconciles the counters with the job table.
 */
public class QueueMaintenance implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(QueueMaintenance.class);

    private static final int PROMOTE_BATCH = 10_000;

    private final MaintenanceStore store;

    private final QueueAdmin admin;

    private final Duration interval;

    private final Duration reconcileInterval;

    private volatile ScheduledExecutorService scheduler;

    public QueueMaintenance(MaintenanceStore store, QueueAdmin admin, Duration interval, Duration reconcileInterval) {
        this.store = store;
        this.admin = admin;
        this.interval = interval;
        this.reconcileInterval = reconcileInterval;
    }

    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
            Thread thread = new Thread(runnable, "pgqueue-maintenance");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.scheduleWithFixedDelay(this::runSafely, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::reconcileSafely, reconcileInterval.toMillis(),
                reconcileInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public boolean isRunning() {
        return scheduler != null;
    }

    /** Runs one pass of promotion and counter folding now. */
    public void runOnce() {
        while (store.promoteDue(PROMOTE_BATCH) == PROMOTE_BATCH) {
            // a large backlog of due jobs: keep going in bounded statements
        }
        store.squeeze();
    }

    private void runSafely() {
        try {
            runOnce();
        }
        catch (RuntimeException ex) {
            logger.warn("pgqueue maintenance failed (will retry): " + ex.getMessage());
        }
    }

    private void reconcileSafely() {
        try {
            admin.reconcile();
        }
        catch (RuntimeException ex) {
            logger.warn("pgqueue counter reconciliation failed (will retry): " + ex.getMessage());
        }
    }
}
