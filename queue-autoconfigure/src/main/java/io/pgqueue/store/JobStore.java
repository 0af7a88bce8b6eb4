package io.pgqueue.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The SQL of the publishing side: inserting jobs. Runs on the caller's Spring-managed transaction when
 * there is one (JdbcTemplate binds to it through DataSourceUtils), in autocommit otherwise.
 */
public class JobStore {

    /**
     * One statement inserts a whole batch: the rows travel as arrays and are expanded with unnest. The same
     * statement records the counter deltas, so counts and rows can never disagree.
     */
    private static final String INSERT = """
            WITH input AS (
                SELECT i.*, coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
                FROM {rows} AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                                 group_key)
            ), inserted AS (
                INSERT INTO {schema}.job (queue, state, priority, run_at, payload, payload_type, headers, max_attempts,
                                          dedup_key, group_key)
                SELECT ?, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due, payload::jsonb,
                       payload_type, headers::jsonb, max_attempts, dedup_key, group_key
                FROM input
                ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
                RETURNING id, queue, state
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, scheduled, ready, enqueued)
                SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'),
                       count(*)
                FROM inserted GROUP BY queue
            )/*end*/, notified AS (
                SELECT pg_notify(?, ?) FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row WHERE ?::boolean
            )
            SELECT id FROM inserted LEFT JOIN notified ON true
            """;

    /** The rows of a batch: one array per column, expanded by unnest. */
    private static final String BATCH_ROWS = """
            unnest(?::text[], ?::text[], ?::text[], ?::smallint[], ?::bigint[], ?::bigint[], ?::int[], ?::text[],
                   ?::text[])""";

    /**
     * The rows of a batch whose jobs differ only in payload (sendBatch with one SendOptions, the usual case):
     * one array of payloads, every other column a single parameter.
     */
    private static final String UNIFORM_BATCH_ROWS = """
            (SELECT p.payload, o.* FROM unnest(?::text[]) AS p(payload) CROSS JOIN
             (VALUES (?::text, ?::text, ?::smallint, ?::bigint, ?::bigint, ?::int, ?::text, ?::text)) AS o)""";

    /** The row of a single send: plain parameters, cheaper to bind than nine one-element arrays. */
    private static final String SINGLE_ROW = """
            (VALUES (?::text, ?::text, ?::text, ?::smallint, ?::bigint, ?::bigint, ?::int, ?::text, ?::text))""";

    private static final String FIND_ACTIVE_BY_DEDUP_KEY = """
            SELECT id FROM {schema}.job WHERE queue = ? AND dedup_key = ? AND state <> 'dead'
            """;

    private final JdbcTemplate jdbc;

    private final String insertBatchSql;

    private final String insertUniformBatchSql;

    private final String insertOneSql;

    private final String findByDedupKeySql;

    private final String channel;

    public JobStore(DataSource dataSource, QueueTables tables) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.channel = tables.notifyChannel();
        this.insertBatchSql = tables.sql(INSERT.replace("{rows}", BATCH_ROWS));
        this.insertUniformBatchSql = tables.sql(INSERT.replace("{rows}", UNIFORM_BATCH_ROWS));
        this.insertOneSql = tables.sql(INSERT.replace("{rows}", SINGLE_ROW));
        this.findByDedupKeySql = tables.sql(FIND_ACTIVE_BY_DEDUP_KEY);
    }

    /**
     * Inserts the jobs in one statement and returns the ids of the rows inserted; jobs whose dedup key is
     * already pending or running in the queue are skipped. With {@code notify}, the same statement sends a
     * NOTIFY for the queue (delivered at commit) when it inserted anything.
     */
    public List<Long> insert(String queue, List<NewJob> jobs, boolean notify) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        List<Long> ids = jdbc.execute((Connection connection) -> {
            boolean single = jobs.size() == 1;
            boolean uniform = !single && differOnlyInPayload(jobs);
            String sql = single ? insertOneSql : (uniform ? insertUniformBatchSql : insertBatchSql);
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                if (single) {
                    statement.setString(1, jobs.get(0).payloadJson());
                    bindOptions(statement, jobs.get(0));
                }
                else if (uniform) {
                    statement.setArray(1, array(connection, "text", jobs, NewJob::payloadJson));
                    bindOptions(statement, jobs.get(0));
                }
                else {
                    bindJobs(connection, statement, jobs);
                }
                statement.setString(10, queue);
                statement.setString(11, channel);
                statement.setString(12, queue);
                statement.setBoolean(13, notify);
                List<Long> inserted = new ArrayList<>(jobs.size());
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        inserted.add(rows.getLong(1));
                    }
                }
                return inserted;
            }
        });
        return (ids != null) ? ids : List.of();
    }

    /** The id of the pending or running job holding this dedup key, if any. */
    public @Nullable Long findActiveByDedupKey(String queue, String dedupKey) {
        List<Long> ids = jdbc.queryForList(findByDedupKeySql, Long.class, queue, dedupKey);
        return ids.isEmpty() ? null : ids.get(0);
    }

    private static boolean differOnlyInPayload(List<NewJob> jobs) {
        NewJob first = jobs.get(0);
        for (NewJob job : jobs) {
            if (!Objects.equals(job.payloadType(), first.payloadType())
                    || !Objects.equals(job.headersJson(), first.headersJson()) || job.priority() != first.priority()
                    || !Objects.equals(job.runAt(), first.runAt()) || job.delayMillis() != first.delayMillis()
                    || !Objects.equals(job.maxAttempts(), first.maxAttempts())
                    || !Objects.equals(job.dedupKey(), first.dedupKey())
                    || !Objects.equals(job.groupKey(), first.groupKey())) {
                return false;
            }
        }
        return true;
    }

    /** Binds parameters 2 to 9, every column but the payload, from one job. */
    private static void bindOptions(PreparedStatement statement, NewJob job) throws SQLException {
        statement.setString(2, job.payloadType());
        statement.setString(3, job.headersJson());
        statement.setShort(4, job.priority());
        statement.setObject(5, (job.runAt() != null) ? job.runAt().toEpochMilli() : null, java.sql.Types.BIGINT);
        statement.setLong(6, job.delayMillis());
        statement.setObject(7, job.maxAttempts(), java.sql.Types.INTEGER);
        statement.setString(8, job.dedupKey());
        statement.setString(9, job.groupKey());
    }

    private static void bindJobs(Connection connection, PreparedStatement statement, List<NewJob> jobs)
            throws SQLException {
        statement.setArray(1, array(connection, "text", jobs, NewJob::payloadJson));
        statement.setArray(2, array(connection, "text", jobs, NewJob::payloadType));
        statement.setArray(3, array(connection, "text", jobs, NewJob::headersJson));
        statement.setArray(4, array(connection, "int2", jobs, NewJob::priority));
        statement.setArray(5, array(connection, "int8", jobs,
                (job) -> (job.runAt() != null) ? job.runAt().toEpochMilli() : null));
        statement.setArray(6, array(connection, "int8", jobs, NewJob::delayMillis));
        statement.setArray(7, array(connection, "int4", jobs, NewJob::maxAttempts));
        statement.setArray(8, array(connection, "text", jobs, NewJob::dedupKey));
        statement.setArray(9, array(connection, "text", jobs, NewJob::groupKey));
    }

    private static Array array(Connection connection, String type, List<NewJob> jobs,
            Function<NewJob, @Nullable Object> column) throws SQLException {
        Object[] values = new Object[jobs.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = column.apply(jobs.get(i));
        }
        return connection.createArrayOf(type, values);
    }
}
