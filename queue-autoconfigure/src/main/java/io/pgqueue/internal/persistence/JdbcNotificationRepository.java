package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The JDBC {@link NotificationRepository}.
 */
final class JdbcNotificationRepository implements NotificationRepository {

    private final DataSource dataSource;

    private final Jdbc jdbc;

    private final Sql notify;

    private final String channel;

    JdbcNotificationRepository(Jdbc jdbc, Schema schema) {
        this.dataSource = jdbc.dataSource();
        this.jdbc = jdbc;
        this.notify = Sql.parse("SELECT count(*) FROM (SELECT pg_notify(:channel, :queue)) AS notified");
        this.channel = schema.notifyChannel();
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
        jdbc.count(notify, (params) -> params.text("channel", channel).text("queue", queue));
    }

    @Override
    public Subscription subscribe() throws SQLException {
        Connection connection = dataSource.getConnection();
        try {
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                // the channel is built from a validated schema identifier
                statement.execute("LISTEN " + channel);
            }
            return new PgSubscription(connection, connection.unwrap(PGConnection.class));
        }
        catch (SQLException | RuntimeException ex) {
            connection.close();
            throw ex;
        }
    }

    private static final class PgSubscription implements Subscription {

        private final Connection connection;

        private final PGConnection pgConnection;

        private PgSubscription(Connection connection, PGConnection pgConnection) {
            this.connection = connection;
            this.pgConnection = pgConnection;
        }

        @Override
        public List<String> poll(int timeoutMillis) throws SQLException {
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
        public boolean isAlive(int timeoutSeconds) throws SQLException {
            return connection.isValid(timeoutSeconds);
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }
}
