package io.pgqueue.internal.persistence;

import java.sql.SQLException;
import java.util.List;

/**
 * The LISTEN/NOTIFY channel of the queue schema ({@code pgqueue_<schema>}), the queue name as payload; the
 * insert statements that notify with their jobs use the same channel.
 */
public interface NotificationRepository {

    /**
     * Whether a statement run now joins the caller's transaction (one actually active on this DataSource): a
     * send then commits, and its wake-up is due, with that transaction; otherwise at once.
     */
    boolean joinsTransaction();

    String channel();

    /** Where the LISTEN connection comes from, for logs: the application's DataSource or a direct connection. */
    String listenSource();

    /** Sends a wake-up for the queue now, outside any transaction of the caller. */
    void notifyQueue(String queue);

    /**
     * Opens a dedicated connection listening on the channel (of the direct DataSource when one is configured:
     * LISTEN through a transaction pooler would listen on a server connection that other clients then use).
     */
    Subscription subscribe() throws SQLException;

    /** A listening connection. */
    interface Subscription extends AutoCloseable {

        /** Waits up to {@code timeoutMillis} for notifications and returns their payloads (queue names). */
        List<String> poll(int timeoutMillis) throws SQLException;

        /**
         * Listens on a channel of this connection's own and sends a notification to it through the application's
         * DataSource: {@link #probeArrived()} then tells whether the two reach the same server (they do not
         * through a transaction pooler, whose LISTEN stays on a server connection other clients then use).
         */
        void sendProbe() throws SQLException;

        /** Whether the last probe's notification has been received by a {@link #poll}. */
        boolean probeArrived();

        /** Whether the connection still answers (a half-open socket receives nothing and fails nothing). */
        boolean isAlive(int timeoutSeconds) throws SQLException;

        @Override
        void close() throws SQLException;
    }
}
