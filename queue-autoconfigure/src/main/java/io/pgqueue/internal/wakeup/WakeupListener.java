package io.pgqueue.internal.wakeup;

import java.sql.SQLException;
import java.util.List;
import java.util.function.Consumer;

import io.pgqueue.internal.persistence.NotificationRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The application's single LISTEN connection: turns notifications into container wake-ups, and reconnects
 * by itself after a failure (waking every container then, since notifications may have been missed).
 */
final class WakeupListener {

    private static final Log logger = LogFactory.getLog(WakeupListener.class);

    private static final int POLL_MILLIS = 500;

    /** Quiet time after which the connection is checked. */
    private static final long LIVENESS_CHECK_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);

    private static final int LIVENESS_TIMEOUT_SECONDS = 5;

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
                long quietSince = System.nanoTime();
                while (running) {
                    List<String> queues = subscription.poll(POLL_MILLIS);
                    queues.stream().distinct().forEach(wakeQueue);
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
                    logger.warn("LISTEN connection on " + store.channel() + " failed, reconnecting in " + backoff
                            + " ms: " + ex.getMessage());
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
}
