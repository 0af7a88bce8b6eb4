package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The JDBC {@link NotificationRepository}.
 */
final class JdbcNotificationRepository implements NotificationRepository {

    /** Where LISTEN connections come from: the application's DataSource, or a direct one beside a pooler. */
    private final DataSource listenSource;

    private final String listenDescription;

    private final Jdbc jdbc;

    /** A NOTIFY sent through the pool (a statement, so that it commits with the caller's transaction). */
    static final Sql NOTIFY = Sql.named("notification.notify",
            "SELECT count(*) FROM (SELECT pg_notify(:channel, :queue)) AS notified");

    private final String channel;

    JdbcNotificationRepository(Jdbc jdbc, Schema schema) {
        this(jdbc, schema.notifyChannel(), jdbc.dataSource(), "the application's DataSource");
    }

    private JdbcNotificationRepository(Jdbc jdbc, String channel, DataSource listenSource, String listenDescription) {
        this.listenSource = listenSource;
        this.listenDescription = listenDescription;
        this.jdbc = jdbc;
        this.channel = channel;
    }

    /** The same channel, listened to on connections of another DataSource (NOTIFY still goes through the pool). */
    JdbcNotificationRepository listeningOn(DataSource directSource, String description) {
        return new JdbcNotificationRepository(jdbc, channel, directSource, description);
    }

    @Override
    public String listenSource() {
        return listenDescription;
    }

    @Override
    public boolean joinsTransaction() {
        return jdbc.inTransactionOnDataSource();
    }

    @Override
    public String channel() {
        return channel;
    }

    @Override
    public void notifyQueue(String queue) {
        notifyOn(channel, queue);
    }

    private void notifyOn(String someChannel, String payload) {
        jdbc.count(NOTIFY, (params) -> params.text("channel", someChannel).text("queue", payload));
    }

    @Override
    public Subscription subscribe() throws SQLException {
        Connection connection = listenSource.getConnection();
        try {
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                // the channel is built from a validated schema identifier
                statement.execute("LISTEN " + channel);
            }
            return new PgSubscription(connection, connection.unwrap(PGConnection.class), channel, this::notifyOn);
        }
        catch (SQLException | RuntimeException ex) {
            connection.close();
            throw ex;
        }
    }

    private static final class PgSubscription implements Subscription {

        private final Connection connection;

        private final PGConnection pgConnection;

        private final String channel;

        private final BiConsumer<String, String> notifyThroughPool;

        private @Nullable String probeChannel;

        private boolean probeArrived;

        private PgSubscription(Connection connection, PGConnection pgConnection, String channel,
                BiConsumer<String, String> notifyThroughPool) {
            this.connection = connection;
            this.pgConnection = pgConnection;
            this.channel = channel;
            this.notifyThroughPool = notifyThroughPool;
        }

        @Override
        public List<String> poll(int timeoutMillis) throws SQLException {
            PGNotification[] notifications = pgConnection.getNotifications(timeoutMillis);
            if (notifications == null) {
                return List.of();
            }
            List<String> queues = new ArrayList<>(notifications.length);
            for (PGNotification notification : notifications) {
                if (notification.getName().equals(channel)) {
                    queues.add(notification.getParameter());
                }
                else if (notification.getName().equals(probeChannel)) {
                    probeArrived = true;
                }
            }
            return queues;
        }

        @Override
        public void sendProbe() throws SQLException {
            // a channel of this connection's own, so that no other listener of the cluster hears the probe
            String probe = "pgqueue_probe_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
            try (Statement statement = connection.createStatement()) {
                statement.execute("LISTEN " + probe);
            }
            probeChannel = probe;
            probeArrived = false;
            notifyThroughPool.accept(probe, "");
        }

        @Override
        public boolean probeArrived() {
            return probeArrived;
        }

        @Override
        public boolean isAlive(int timeoutSeconds) throws SQLException {
            return connection.isValid(timeoutSeconds);
        }

        @Override
        public void close() throws SQLException {
            try (Statement statement = connection.createStatement()) {
                // a pooled connection goes back to its pool: it must not keep listening for the next borrower
                statement.execute("UNLISTEN *");
            }
            catch (SQLException ex) {
                // a broken connection: the pool discards it
            }
            finally {
                connection.close();
            }
        }
    }
}
