package io.pgqueue.test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.autoconfigure.PgQueueDataSources;
import io.pgqueue.autoconfigure.PgQueueProperties;
import io.pgqueue.model.DeadJob;

import org.springframework.context.ApplicationContext;

/**
 * Waits for queues in an application's tests, e.g. after an HTTP call that enqueues jobs:
 * <pre>{@code
 * QueueTestSupport.of(context).awaitDrained("emails", Duration.ofSeconds(10));
 * }</pre>
 * A queue is drained when it has no ready, running or due-but-not-yet-promoted job; jobs scheduled for later
 * and dead jobs do not count. Exact counts straight from the job table: meant for tests, not for production.
 */
public final class QueueTestSupport {

    private static final long POLL_MILLIS = 20;

    /** Ready, running, or scheduled and already due: what a listener would still run. */
    private static final String PENDING = "(state IN ('ready', 'running') OR (state = 'scheduled' AND run_at <= now()))";

    /** Where each queue's jobs are: the application's DataSource, or another of {@code pgqueue.databases}. */
    private final PgQueueDataSources dataSources;

    private final String schema;

    private final QueueAdmin admin;

    private QueueTestSupport(PgQueueDataSources dataSources, String schema, QueueAdmin admin) {
        this.dataSources = dataSources;
        // the only identifier in the statements: the same rule pgqueue's startup enforced
        if (!schema.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("Invalid queue schema name '" + schema + "'");
        }
        this.schema = schema;
        this.admin = admin;
    }

    public static QueueTestSupport of(ApplicationContext context) {
        PgQueueDataSources dataSources = context.getBeanProvider(PgQueueDataSources.class).getIfAvailable(() -> {
            DataSource dataSource = context.getBean(DataSource.class);
            return new PgQueueDataSources() {
                @Override
                public DataSource forQueue(String queue) {
                    return dataSource;
                }

                @Override
                public List<DataSource> all() {
                    return List.of(dataSource);
                }
            };
        });
        return new QueueTestSupport(dataSources, context.getBean(PgQueueProperties.class).getSchema().getName(),
                context.getBean(QueueAdmin.class));
    }

    /** Jobs of the queue that are ready, running, or scheduled and already due (exact, from the job table). */
    public long pending(String queue) {
        List<String> counts = query(dataSources.forQueue(queue),
                "SELECT count(*) FROM " + schema + ".job WHERE queue = ? AND " + PENDING, queue);
        return Long.parseLong(counts.get(0));
    }

    /**
     * Waits until the queue is drained.
     * @throws AssertionError with the pending count when it is not drained in time
     */
    public void awaitDrained(String queue, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pending;
        while ((pending = pending(queue)) > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Queue '" + queue + "' still has " + pending + " pending job(s) after "
                        + timeout);
            }
            pause();
        }
    }

    /** Waits until every queue is drained. */
    public void awaitAllDrained(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> busy;
        while (!(busy = busyQueues()).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Queues " + busy + " still have pending jobs after " + timeout);
            }
            pause();
        }
    }

    /** The queues with pending jobs, in every database. */
    private List<String> busyQueues() {
        List<String> busy = new ArrayList<>();
        for (DataSource dataSource : dataSources.all()) {
            busy.addAll(query(dataSource, "SELECT DISTINCT queue FROM " + schema + ".job WHERE " + PENDING + " ORDER BY queue"));
        }
        return busy;
    }

    /**
     * Deletes every job of the queue, whatever its state, with its dedup windows, fairness keys, pause and rate
     * state, and brings the counters back to the rows: for tests that must not see each other's jobs. A job of
     * the queue that a listener runs meanwhile finishes without a row (its acknowledgement finds nothing).
     */
    public void purge(String queue) {
        DataSource dataSource = dataSources.forQueue(queue);
        for (String table : new String[] { "job", "dedup_window", "fair_key", "fair_charge", "queue_state", "queue_rate" }) {
            update(dataSource, "DELETE FROM " + schema + "." + table + " WHERE queue = ?", queue);
        }
        admin.reconcile();
    }

    /**
     * Empties every queue of every database: jobs, history, workflows, batches, counters, dedup windows, fairness
     * keys, pause and rate state. Nodes, recurring jobs and the schema stay. Waits for the locks of statements in
     * flight (a listener's claim), so call it between tests, not inside one.
     */
    public void purgeAll() {
        String tables = String.join(", ", List.of("job", "job_history", "job_dependency", "dedup_window", "fair_key", "fair_charge",
                "queue_state", "queue_rate", "queue_counter", "queue_counter_delta", "workflow", "workflow_node",
                "workflow_counter", "workflow_counter_delta", "batch", "batch_slot", "batch_callback", "batch_counter",
                "batch_counter_delta").stream().map((table) -> schema + "." + table).toList());
        for (DataSource dataSource : dataSources.all()) {
            update(dataSource, "TRUNCATE " + tables);
        }
    }

    /** The dead jobs of a queue, newest first (at most 1000). */
    public List<DeadJob> deadJobs(String queue) {
        return admin.deadJobs(queue, 0, 1000, true);
    }

    /** Runs a statement on a connection of its own that it commits. */
    private static void update(DataSource dataSource, String sql, String... parameters) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setString(i + 1, parameters[i]);
            }
            statement.executeUpdate();
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not purge the queues: " + ex.getMessage(), ex);
        }
    }

    /** The first column of every row, read on a connection of its own that it commits. */
    private static List<String> query(DataSource dataSource, String sql, String... parameters) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setString(i + 1, parameters[i]);
            }
            List<String> values = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    values.add(rows.getString(1));
                }
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            return values;
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not read the queues: " + ex.getMessage(), ex);
        }
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for queues", ex);
        }
    }
}
