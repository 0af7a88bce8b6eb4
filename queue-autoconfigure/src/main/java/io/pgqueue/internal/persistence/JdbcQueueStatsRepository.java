package io.pgqueue.internal.persistence;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.pgqueue.model.JobState;
import io.pgqueue.model.QueueCounts;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC {@link QueueStatsRepository}.
 */
final class JdbcQueueStatsRepository implements QueueStatsRepository {

    private final Jdbc jdbc;

    private final Schema schema;

    private final Sql counts;

    private final Sql lags;

    private final Sql pause;

    private final Sql paused;

    private final Sql squeeze;

    private final Sql reconcileLock;

    private final Sql reconcile;

    private final TransactionTemplate transactions;

    JdbcQueueStatsRepository(Jdbc jdbc, Schema schema, Counters counters) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.counts = schema.sql("queue.counts", counters.countsQuery());
        // one loose index scan of the claim index per queue
        this.lags = schema.sql("queue.lags", "SELECT queue, extract(epoch FROM now() - {schema}.oldest_ready_run_at(queue)) AS lag_seconds"
                + " FROM (" + counters.queuesQuery() + ") AS q");
        this.pause = schema.sql("queue.pause", """
                INSERT INTO {schema}.queue_state (queue, paused) VALUES (:queue, :paused)
                ON CONFLICT (queue) DO UPDATE SET paused = excluded.paused, updated_at = now()
                """);
        this.paused = schema.sql("queue.paused", "SELECT queue FROM {schema}.queue_state WHERE paused");
        this.squeeze = schema.sql("queue.squeeze", counters.squeezeStatement());
        this.reconcileLock = schema.sql("queue.reconcile-lock", counters.reconcileLockStatement());
        this.reconcile = schema.sql("queue.reconcile", counters.reconcileStatement());
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(jdbc.dataSource()));
    }

    @Override
    public List<QueueCounts> counts() {
        return jdbc.query(counts, Jdbc.Binder.NONE, (row) -> new QueueCounts(row.getString("queue"), states(row),
                row.getLong("enqueued"), row.getLong("completed"), row.getLong("failed"), row.getLong("dead_lettered"),
                row.getLong("cancelled")));
    }

    @Override
    public Map<String, Duration> lags() {
        Map<String, Duration> lags = new LinkedHashMap<>();
        jdbc.query(this.lags, Jdbc.Binder.NONE, (row) -> {
            double seconds = row.getDouble("lag_seconds");
            if (!row.wasNull()) {
                lags.put(row.getString("queue"), Duration.ofNanos((long) (Math.max(0, seconds) * 1e9)));
            }
            return seconds;
        });
        return lags;
    }

    @Override
    public void setPaused(String queue, boolean paused) {
        jdbc.update(pause, (params) -> params.text("queue", queue).bool("paused", paused));
    }

    @Override
    public Set<String> pausedQueues() {
        return new TreeSet<>(jdbc.query(paused, Jdbc.Binder.NONE, (row) -> row.getString(1)));
    }

    @Override
    public long squeeze() {
        return jdbc.count(squeeze, (params) -> params.text("lock", "pgqueue.squeeze." + schema.name()));
    }

    @Override
    public List<QueueCounts> reconcile() {
        // the comparison takes its snapshot only once the lock is held, so it sees every earlier correction
        List<QueueCounts> drift = transactions.execute((status) -> {
            jdbc.count(reconcileLock, (params) -> params.text("lock", "pgqueue.reconcile." + schema.name()));
            return jdbc.query(reconcile, Jdbc.Binder.NONE,
                    (row) -> new QueueCounts(row.getString("queue"), states(row), 0, 0, 0, 0, 0));
        });
        return (drift != null) ? drift : List.of();
    }

    private static Map<JobState, Long> states(ResultSet row) throws SQLException {
        Map<JobState, Long> states = new EnumMap<>(JobState.class);
        for (JobState state : JobState.live()) {
            states.put(state, row.getLong(state.value()));
        }
        return states;
    }
}
