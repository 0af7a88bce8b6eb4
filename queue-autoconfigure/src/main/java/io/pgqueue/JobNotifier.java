package io.pgqueue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.pgqueue.store.NotificationStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Wakes listeners after an enqueue. Listener containers of this JVM are woken in-process once the jobs are
 * committed, at no cost to the database. Other JVMs learn of new jobs through NOTIFY. PostgreSQL serialises
 * committing transactions that notified on one global lock, so pgqueue sends at most one notification per
 * queue per transaction, and at most one per queue per debounce window across the JVM. A skipped
 * notification is replaced by one trailing notification sent after the window (and after the skipping
 * transaction committed), so no committed job waits for the poll interval because of the debounce.
 */
public class JobNotifier implements DisposableBean {

    /** What an insert should do about notifying. */
    public enum Decision {

        /** The insert statement itself notifies. */
        WITH_INSERT,

        /** Debounced: a trailing notification follows after the window. */
        TRAILING,

        /** Notifications are off: only listeners of this JVM are woken. */
        LOCAL_ONLY,

        /** Nothing to do: an earlier insert of this transaction took care of this queue. */
        SKIP
    }

    private static final Log logger = LogFactory.getLog(JobNotifier.class);

    private final NotificationStore store;

    private final boolean enabled;

    private final long debounceNanos;

    private final Map<String, Long> lastSent = new ConcurrentHashMap<>();

    private final Set<String> trailingScheduled = ConcurrentHashMap.newKeySet();

    private final List<Consumer<String>> localListeners = new CopyOnWriteArrayList<>();

    private volatile @Nullable ScheduledExecutorService trailing;

    public JobNotifier(NotificationStore store, boolean enabled, Duration debounce) {
        this.store = store;
        this.enabled = enabled;
        this.debounceNanos = debounce.toNanos();
    }

    /** Registers a callback that is told, with the queue name, when jobs committed in this JVM. */
    public void addLocalListener(Consumer<String> wakeUp) {
        localListeners.add(wakeUp);
    }

    public Decision decide(String queue) {
        if (inTransaction() && !notifiedQueuesOfTransaction().add(queue)) {
            return Decision.SKIP;
        }
        if (!enabled) {
            return Decision.LOCAL_ONLY;
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
        if (decision == Decision.SKIP || (decision != Decision.TRAILING && localListeners.isEmpty())) {
            return;
        }
        if (inTransaction()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    committed(queue, decision);
                }
            });
        }
        else {
            committed(queue, decision);
        }
    }

    private void committed(String queue, Decision decision) {
        for (Consumer<String> listener : localListeners) {
            listener.accept(queue);
        }
        if (decision == Decision.TRAILING) {
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
