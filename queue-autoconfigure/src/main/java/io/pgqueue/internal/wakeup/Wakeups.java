package io.pgqueue.internal.wakeup;

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
import java.util.function.Predicate;

import io.pgqueue.internal.persistence.NotificationRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Every wake-up of a listener container, and the only code that decides to NOTIFY. After an enqueue (a send
 * or a recurring tick), listener containers of this JVM are woken in-process once the jobs are committed, at
 * no cost to the database; other JVMs learn of new jobs through NOTIFY, which this JVM receives on its one
 * LISTEN connection while it runs containers. PostgreSQL serialises
 * committing transactions that notified on one global lock, so pgqueue sends at most one notification per
 * queue per transaction, and at most one per queue per debounce window across the JVM. A skipped
 * notification is replaced by one trailing notification sent after the window (and after the skipping
 * transaction committed), so no committed job waits for the poll interval because of the debounce.
 */
public final class Wakeups implements DisposableBean {

    /**
     * The start of a payload that announces a cancellation request, followed by the job id or {@link #ALL_JOBS}:
     * never a queue name, which has no {@code !}.
     */
    static final String CANCEL_PREFIX = "!cancel:";

    static final String ALL_JOBS = "*";

    /** An insert of jobs, told whether its statement should NOTIFY the queue's channel itself. */
    @FunctionalInterface
    public interface Insert<T> {

        T run(boolean notify);
    }

    /** What an insert should do about notifying. */
    private enum Decision {

        /** The insert statement itself notifies. */
        WITH_INSERT,

        /** Debounced: a trailing notification follows after the window. */
        TRAILING,

        /** Notifications are off: only listeners of this JVM are woken. */
        LOCAL_ONLY,

        /** Nothing to do: an earlier insert of this transaction took care of this queue. */
        SKIP
    }

    private static final Log logger = LogFactory.getLog(Wakeups.class);

    private final NotificationRepository channel;

    private final boolean enabled;

    private final long debounceNanos;

    private final Map<String, Long> lastSent = new ConcurrentHashMap<>();

    private final Set<String> trailingScheduled = ConcurrentHashMap.newKeySet();

    private final List<Consumer<String>> localListeners = new CopyOnWriteArrayList<>();

    private final List<Runnable> wakeAllListeners = new CopyOnWriteArrayList<>();

    private final List<Consumer<@Nullable Long>> cancelListeners = new CopyOnWriteArrayList<>();

    private final WakeupListener listener;

    private volatile @Nullable ScheduledExecutorService trailing;

    /**
     * @param channel the queue schema's notification channel
     * @param enabled whether to NOTIFY and LISTEN (off behind PgBouncer in transaction pooling mode)
     * @param debounce shortest time between two notifications for one queue from this JVM
     */
    public Wakeups(NotificationRepository channel, boolean enabled, Duration debounce) {
        this.channel = channel;
        this.enabled = enabled;
        this.debounceNanos = debounce.toNanos();
        this.listener = new WakeupListener(channel, this::received, this::wakeAllLocal);
    }

    /**
     * Registers the containers of this JVM: {@code wakeQueue} is told the queue name when jobs of that queue
     * were committed here or a NOTIFY arrived; {@code wakeAll} when notifications may have been missed.
     */
    public void addLocalListener(Consumer<String> wakeQueue, Runnable wakeAll) {
        localListeners.add(wakeQueue);
        wakeAllListeners.add(wakeAll);
    }

    /**
     * Registers this JVM's node: {@code cancelRequested} is told the id of a job whose cancellation was requested
     * anywhere in the cluster (null when several were), so that it interrupts the job's handler at once if it
     * runs it; the node checks the job's row first, so a notification alone cancels nothing.
     */
    public void addCancelListener(Consumer<@Nullable Long> cancelRequested) {
        cancelListeners.add(cancelRequested);
    }

    /** As {@link #cancelRequested(Long)} for the jobs whose cancellation was requested, if any: one, or several. */
    public void cancelRequested(java.util.Collection<Long> jobIds) {
        if (!jobIds.isEmpty()) {
            cancelRequested((jobIds.size() == 1) ? jobIds.iterator().next() : null);
        }
    }

    /**
     * Announces that the cancellation of a running job (null: of several) was requested, once the caller's
     * transaction (if any) committed the request: by NOTIFY to every node when notifications are on, else to
     * this JVM only. The heartbeat passes the request on anyway; this only makes it immediate.
     */
    public void cancelRequested(@Nullable Long jobId) {
        afterCommit(() -> {
            if (!enabled) {
                cancelLocal(jobId);
                return;
            }
            try {
                channel.notifyQueue(CANCEL_PREFIX + ((jobId != null) ? jobId : ALL_JOBS));
            }
            catch (RuntimeException ex) {
                logger.debug("Could not announce a cancellation (the next heartbeat passes it on): " + ex);
            }
        });
    }

    /** A notification's payload: a queue with new jobs, or a cancellation request. */
    private void received(String payload) {
        if (!payload.startsWith(CANCEL_PREFIX)) {
            wakeLocal(payload);
            return;
        }
        String job = payload.substring(CANCEL_PREFIX.length());
        try {
            cancelLocal(job.equals(ALL_JOBS) ? null : Long.valueOf(job));
        }
        catch (NumberFormatException ex) {
            logger.debug("Ignored a malformed cancellation notification: " + payload);
        }
    }

    private void cancelLocal(@Nullable Long jobId) {
        for (Consumer<@Nullable Long> cancel : cancelListeners) {
            cancel.accept(jobId);
        }
    }

    /** Opens the LISTEN connection, when notifications are on; it reconnects by itself after failures. */
    public void startListening() {
        if (enabled) {
            listener.start();
        }
    }

    /**
     * Checks the LISTEN connection once, now: a NOTIFY sent through the application's DataSource must arrive on it
     * within the timeout (the startup check of a direct connection configured beside a pooler).
     *
     * @throws IllegalStateException saying what failed
     */
    public void verifyListening(Duration timeout) {
        WakeupListener.verify(channel, timeout);
    }

    public void stopListening() {
        listener.stop();
    }

    /** Whether the LISTEN connection is open (false when notifications are off). */
    public boolean isListening() {
        return listener.isConnected();
    }

    private void wakeLocal(String queue) {
        for (Consumer<String> local : localListeners) {
            local.accept(queue);
        }
    }

    private void wakeAllLocal() {
        wakeAllListeners.forEach(Runnable::run);
    }

    /**
     * Runs an insert of jobs into the queue and wakes the queue's listeners once it committed: in this JVM at
     * once, in others by NOTIFY (sent by the insert's own statement, or debounced after it). The one way to
     * enqueue: nothing can insert and forget the wake-up.
     */
    public <T> T enqueue(String queue, Insert<T> insert) {
        return enqueue(queue, insert, (result) -> true);
    }

    /** As {@link #enqueue}, for an insert that may insert nothing (returns false): then nobody is woken. */
    public boolean enqueueIf(String queue, Insert<Boolean> insert) {
        return enqueue(queue, insert, Boolean::booleanValue);
    }

    private <T> T enqueue(String queue, Insert<T> insert, Predicate<T> inserted) {
        Decision decision = decide(queue);
        T result = insert.run(decision == Decision.WITH_INSERT);
        if (inserted.test(result)) {
            afterInsert(queue, decision);
        }
        return result;
    }

    /**
     * Jobs of the queue became claimable without an insert (the queue resumed, dead jobs retried): its listeners
     * are woken as for an insert, once the caller's transaction (if any) committed.
     */
    public void jobsReady(String queue) {
        enqueue(queue, (notify) -> {
            if (notify) {
                channel.notifyQueue(queue);
            }
            return null;
        });
    }

    private Decision decide(String queue) {
        if (inTransaction() && !notifiedQueuesOfTransaction().add(queue)) {
            return Decision.SKIP;
        }
        if (!enabled) {
            return Decision.LOCAL_ONLY;
        }
        long now = System.nanoTime();
        if (withinWindow(lastSent.get(queue), now)) {
            // the usual case under load, read without the map's lock that every sender of the queue contends for
            return Decision.TRAILING;
        }
        boolean[] claimed = new boolean[1];
        // atomically: only one sender per window gets to notify with its insert
        lastSent.compute(queue, (name, last) -> {
            if (withinWindow(last, now)) {
                return last;
            }
            claimed[0] = true;
            return now;
        });
        return claimed[0] ? Decision.WITH_INSERT : Decision.TRAILING;
    }

    /** Whether a notification sent at {@code last} (null: none yet) keeps the queue's debounce window open. */
    private boolean withinWindow(@Nullable Long last, long now) {
        return debounceNanos > 0 && last != null && now - last < debounceNanos;
    }

    /** Called after the insert statement returned. */
    private void afterInsert(String queue, Decision decision) {
        if (decision == Decision.SKIP || (decision != Decision.TRAILING && localListeners.isEmpty())) {
            return;
        }
        afterCommit(() -> committed(queue, decision));
    }

    /** Runs the action once the caller's transaction committed, or at once outside a transaction. */
    private void afterCommit(Runnable action) {
        if (inTransaction()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    action.run();
                }
            });
        }
        else {
            action.run();
        }
    }

    private void committed(String queue, Decision decision) {
        wakeLocal(queue);
        if (decision == Decision.TRAILING) {
            scheduleTrailing(queue);
        }
    }

    private void scheduleTrailing(String queue) {
        if (trailingScheduled.contains(queue) || !trailingScheduled.add(queue)) {
            return;
        }
        executor().schedule(() -> {
            trailingScheduled.remove(queue);
            lastSent.put(queue, System.nanoTime());
            try {
                channel.notifyQueue(queue);
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
                TransactionSynchronizationManager.unbindResourceIfPossible(Wakeups.this);
            }
        });
        return queues;
    }

    /**
     * Whether the send joined the caller's transaction on pgqueue's DataSource: its wake-up waits for that commit.
     * A send beside another DataSource's transaction (or under NOT_SUPPORTED) committed on its own connection.
     */
    private boolean inTransaction() {
        return TransactionSynchronizationManager.isSynchronizationActive() && channel.joinsTransaction();
    }

    @Override
    public void destroy() {
        listener.stop();
        ScheduledExecutorService current = trailing;
        if (current != null) {
            current.shutdownNow();
        }
    }
}
