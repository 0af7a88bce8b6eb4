package io.pgqueue.internal.wakeup;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.pgqueue.internal.persistence.NotificationRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The application's single LISTEN connection: turns notifications into container wake-ups, and reconnects
 * by itself after a failure (waking every container then, since notifications may have been missed). Each
 * connection proves itself with a probe: a NOTIFY sent through the application's DataSource must arrive on it.
 * Through a transaction pooler it does not (the LISTEN stays on a server connection that other clients then
 * use), and the listener says so once instead of leaving wake-ups to the poll interval in silence.
 */
final class WakeupListener {

    private static final Log logger = LogFactory.getLog(WakeupListener.class);

    private static final int POLL_MILLIS = 500;

    /** Quiet time after which the connection is checked. */
    private static final long LIVENESS_CHECK_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);

    private static final int LIVENESS_TIMEOUT_SECONDS = 5;

    /** How long a probe may take before the connection counts as deaf. */
    static final long PROBE_TIMEOUT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    private volatile boolean deafReported;

    private final NotificationRepository store;

    private final Consumer<String> wakeQueue;

    private final Runnable wakeAll;

    private volatile boolean running;

    private volatile boolean connected;

    private Thread thread;

    WakeupListener(NotificationRepository store, Consumer<String> wakeQueue, Runnable wakeAll) {
        this.store = store;
        this.wakeQueue = wakeQueue;
        this.wakeAll = wakeAll;
    }

    synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = new Thread(this::listenLoop, "pgqueue-notify-listener");
        thread.setDaemon(true);
        thread.start();
    }

    synchronized void stop() {
        running = false;
        if (thread != null) {
            try {
                thread.join(2L * POLL_MILLIS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
    }

    /** Whether the listening connection is currently open. */
    boolean isConnected() {
        return connected;
    }

    private void listenLoop() {
        long backoff = 100;
        while (running) {
            try (NotificationRepository.Subscription subscription = store.subscribe()) {
                connected = true;
                backoff = 100;
                wakeAll.run();
                boolean probing = sendProbe(subscription);
                long probeSent = System.nanoTime();
                long quietSince = probeSent;
                while (running) {
                    List<String> queues = subscription.poll(POLL_MILLIS);
                    queues.stream().distinct().forEach(wakeQueue);
                    if (probing && (subscription.probeArrived() || System.nanoTime() - probeSent > PROBE_TIMEOUT_NANOS)) {
                        probing = false;
                        if (!subscription.probeArrived()) {
                            reportDeaf();
                        }
                    }
                    if (!queues.isEmpty()) {
                        quietSince = System.nanoTime();
                    }
                    else if (System.nanoTime() - quietSince > LIVENESS_CHECK_NANOS) {
                        // a half-open connection delivers nothing and reports nothing: ask it
                        if (!subscription.isAlive(LIVENESS_TIMEOUT_SECONDS)) {
                            throw new SQLException("LISTEN connection does not answer");
                        }
                        quietSince = System.nanoTime();
                    }
                }
            }
            catch (SQLException | RuntimeException | Error ex) {
                // an Error too: a LISTEN thread that died would leave every container to its poll interval
                connected = false;
                if (running) {
                    logger.warn("LISTEN connection on " + store.channel() + " (" + store.listenSource()
                            + ") failed, reconnecting in " + backoff + " ms: " + ex.getMessage());
                    try {
                        Thread.sleep(backoff);
                    }
                    catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    backoff = Math.min(backoff * 2, 5000);
                }
            }
            finally {
                connected = false;
            }
        }
    }

    /** Sends the connection's probe; false when it could not be sent (there is nothing to wait for). */
    private boolean sendProbe(NotificationRepository.Subscription subscription) throws SQLException {
        try {
            subscription.sendProbe();
            return true;
        }
        catch (RuntimeException ex) {
            // the application's DataSource failed, not the LISTEN connection: keep listening
            logger.debug("Could not send the LISTEN connection's probe: " + ex.getMessage());
            return false;
        }
    }

    private void reportDeaf() {
        if (deafReported) {
            return;
        }
        deafReported = true;
        logger.warn("pgqueue's LISTEN connection (" + store.listenSource() + ") did not receive a NOTIFY sent "
                + "through the application's DataSource within 5 s: wake-ups from other applications now wait for "
                + "the poll interval. Behind a transaction pooler (PgBouncer in transaction mode, Supavisor, Neon's "
                + "pooled endpoint) set pgqueue.listener.notify-url to a direct connection, or "
                + "pgqueue.listener.notify=false (see docs/production.md)");
    }

    /**
     * Opens a LISTEN connection, sends a probe through the application's DataSource and waits for it: the
     * startup check of a configured direct connection. Throws, with the reason, when the probe does not arrive.
     */
    static void verify(NotificationRepository store, Duration timeout) {
        boolean arrived = false;
        try (NotificationRepository.Subscription subscription = store.subscribe()) {
            subscription.sendProbe();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!arrived && System.nanoTime() < deadline) {
                subscription.poll(POLL_MILLIS);
                arrived = subscription.probeArrived();
            }
        }
        catch (SQLException | RuntimeException ex) {
            throw new IllegalStateException("cannot LISTEN on it: " + ex.getMessage(), ex);
        }
        if (!arrived) {
            throw new IllegalStateException("it connects, but a NOTIFY sent through the application's DataSource did "
                    + "not arrive on it within " + timeout.toSeconds() + " s: it must reach the same database directly, "
                    + "not through a transaction pooler");
        }
    }
}
