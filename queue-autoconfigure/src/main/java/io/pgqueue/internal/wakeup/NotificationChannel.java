package io.pgqueue.internal.wakeup;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.pgqueue.internal.lifecycle.Schema;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.jdbc.core.JdbcTemplate;


/**
 * The LISTEN/NOTIFY channel of a queue schema ({@code pgqueue_<schema>}), the queue name as payload. The
 * insert statements that notify with their jobs use the same channel.
 */
final class NotificationChannel {

    private final DataSource dataSource;

    private final JdbcTemplate jdbc;

    private final String channel;

    NotificationChannel(DataSource dataSource, Schema schema) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        this.channel = schema.notifyChannel();
    }

    String channel() {
        return channel;
    }

    /** Sends a wake-up for the queue now, outside any transaction of the caller. */
    void notifyQueue(String queue) {
        jdbc.queryForList("SELECT pg_notify(?, ?)", channel, queue);
    }

    /** Opens a dedicated connection listening on the channel. */
    Subscription subscribe() throws SQLException {
        Connection connection = dataSource.getConnection();
        try {
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                // the channel is built from a validated schema identifier
                statement.execute("LISTEN " + channel);
            }
            return new Subscription(connection, connection.unwrap(PGConnection.class));
        }
        catch (SQLException | RuntimeException ex) {
            connection.close();
            throw ex;
        }
    }

    /** A listening connection. */
    static final class Subscription implements AutoCloseable {

        private final Connection connection;

        private final PGConnection pgConnection;

        private Subscription(Connection connection, PGConnection pgConnection) {
            this.connection = connection;
            this.pgConnection = pgConnection;
        }

        /** Waits up to {@code timeoutMillis} for notifications and returns their payloads (queue names). */
        List<String> poll(int timeoutMillis) throws SQLException {
            PGNotification[] notifications = pgConnection.getNotifications(timeoutMillis);
            if (notifications == null) {
                return List.of();
            }
            List<String> queues = new ArrayList<>(notifications.length);
            for (PGNotification notification : notifications) {
                queues.add(notification.getParameter());
            }
            return queues;
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }
}
