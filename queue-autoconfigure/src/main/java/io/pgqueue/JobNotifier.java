package io.pgqueue;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.pgqueue.store.NotificationStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Decides which enqueues carry a NOTIFY. PostgreSQL serialises committing transactions that notified on one
 * global lock, so pgqueue sends at most one notification per queue per transaction, and at most one per
 * queue per debounce window across the JVM. A skipped notification is replaced by one trailing
 * notification sent after the window (and after the skipping transaction committed), so no committed job
 * waits for the poll interval because of the debounce.
 */
public class JobNotifier implements DisposableBean {

    /** What an insert should do about notifying. */
    public enum Decision {

        /** The insert statement itself notifies. */
        WITH_INSERT,

        /** Nothing to do: this transaction already notified this queue, or notifications are off. */
        SKIP,

        /** Debounced: a trailing notification follows after the window. */
        TRAILING
    }

    private static final Log logger = LogFactory.getLog(JobNotifier.class);

    private final NotificationStore store;

    private final boolean enabled;

    private final long debounceNanos;

    private final Map<String, Long> lastSent = new ConcurrentHashMap<>();

    private final Set<String> trailingScheduled = ConcurrentHashMap.newKeySet();

    private volatile ScheduledExecutorService trailing;

    public JobNotifier(NotificationStore store, boolean enabled, Duration debounce) {
        this.store = store;
        this.enabled = enabled;
        this.debounceNanos = debounce.toNanos();
    }

    public Decision decide(String queue) {
        if (!enabled) {
            return Decision.SKIP;
        }
        if (inTransaction() && !notifiedQueuesOfTransaction().add(queue)) {
            return Decision.SKIP;
        }
        long now = System.nanoTime();
        boolean[] claimed = new boolean[1];
        // atomically: only one sender per window gets to notify with its insert
        lastSent.compute(queue, (name, last) -> {
            if (debounceNanos > 0 && last != null && now - last < debounceNanos) {
                return last;
            }
            claimed[0] = true;
            return now;
        });
        return claimed[0] ? Decision.WITH_INSERT : Decision.TRAILING;
    }

    /** Called after the insert statement returned. */
    public void afterInsert(String queue, Decision decision) {
        if (decision != Decision.TRAILING) {
            return;
        }
        if (inTransaction()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    scheduleTrailing(queue);
                }
            });
        }
        else {
            scheduleTrailing(queue);
        }
    }

    private void scheduleTrailing(String queue) {
        if (!trailingScheduled.add(queue)) {
            return;
        }
        executor().schedule(() -> {
            trailingScheduled.remove(queue);
            lastSent.put(queue, System.nanoTime());
            try {
                store.notifyQueue(queue);
            }
            catch (RuntimeException ex) {
                logger.debug("Trailing NOTIFY for queue '" + queue + "' failed; pollers will find the jobs: "
                        + ex.getMessage());
            }
        }, debounceNanos, TimeUnit.NANOSECONDS);
    }

    private ScheduledExecutorService executor() {
        ScheduledExecutorService current = trailing;
        if (current == null) {
            synchronized (this) {
                current = trailing;
                if (current == null) {
                    current = Executors.newSingleThreadScheduledExecutor((runnable) -> {
                        Thread thread = new Thread(runnable, "pgqueue-notify-debounce");
                        thread.setDaemon(true);
                        return thread;
                    });
                    trailing = current;
                }
            }
        }
        return current;
    }

    @SuppressWarnings("unchecked")
    private Set<String> notifiedQueuesOfTransaction() {
        Object bound = TransactionSynchronizationManager.getResource(this);
        if (bound != null) {
            return (Set<String>) bound;
        }
        Set<String> queues = new HashSet<>();
        TransactionSynchronizationManager.bindResource(this, queues);
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                TransactionSynchronizationManager.unbindResourceIfPossible(JobNotifier.this);
            }
        });
        return queues;
    }

    private static boolean inTransaction() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    @Override
    public void destroy() {
        ScheduledExecutorService current = trailing;
        if (current != null) {
            current.shutdownNow();
        }
    }
}
