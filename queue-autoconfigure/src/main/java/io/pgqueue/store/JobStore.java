package io.pgqueue.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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
                {count}
            )/*end*/{notify}
            """;

    /** One delta row for the whole batch: worth an aggregate when many rows were inserted. */
    private static final String COUNT_GROUPED = """
            SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'),
                           count(*)
                    FROM inserted GROUP BY queue""";

    /** At most one row was inserted: its delta without an aggregate node (measurably cheaper per send). */
    private static final String COUNT_ONE = """
            SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted""";

    /**
     * The NOTIFY (delivered at commit) when the statement inserted anything. Only the statements that notify
     * carry it: most sends under load are debounced and skip it.
     */
    private static final String NOTIFY = """
            , notified AS (
                SELECT pg_notify(?, ?) FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row
            )
            SELECT id FROM inserted LEFT JOIN notified ON true""";

    private static final String NO_NOTIFY = """

            SELECT id FROM inserted""";

    /** The rows of a batch: one array per column, expanded by unnest. */
    private static final String MIXED_ROWS = """
            unnest(?::text[], ?::text[], ?::text[], ?::smallint[], ?::bigint[], ?::bigint[], ?::int[], ?::text[],
                   ?::text[])""";

    /**
     * The rows of a batch whose jobs differ only in payload (sendBatch with one SendOptions, the usual case):
     * one array of payloads, every other column a single parameter.
     */
    private static final String UNIFORM_ROWS = """
            (SELECT p.payload, o.* FROM unnest(?::text[]) AS p(payload) CROSS JOIN
             (VALUES (?::text, ?::text, ?::smallint, ?::bigint, ?::bigint, ?::int, ?::text, ?::text)) AS o)""";

    /** The row of a single send: plain parameters, cheaper to bind than nine one-element arrays. */
    private static final String SINGLE_ROW = """
            (VALUES (?::text, ?::text, ?::text, ?::smallint, ?::bigint, ?::bigint, ?::int, ?::text, ?::text))""";

    private static final String FIND_ACTIVE_BY_DEDUP_KEY = """
            SELECT id FROM {schema}.job WHERE queue = ? AND dedup_key = ? AND state <> 'dead'
            """;

    private final JdbcTemplate jdbc;

    /** The insert statements by row shape, each without and with NOTIFY. */
    private final Map<RowShape, String[]> insertSql = new EnumMap<>(RowShape.class);

    private final String findByDedupKeySql;

    private final String channel;

    public JobStore(DataSource dataSource, QueueTables tables) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.channel = tables.notifyChannel();
        for (RowShape shape : RowShape.values()) {
            String rows = INSERT.replace("{rows}", shape.rows)
                .replace("{count}", (shape == RowShape.SINGLE) ? COUNT_ONE : COUNT_GROUPED);
            insertSql.put(shape, new String[] { tables.sql(rows.replace("{notify}", NO_NOTIFY)),
                    tables.sql(rows.replace("{notify}", NOTIFY)) });
        }
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
            RowShape shape = RowShape.of(jobs);
            try (PreparedStatement statement = connection.prepareStatement(insertSql.get(shape)[notify ? 1 : 0])) {
                switch (shape) {
                    case SINGLE -> {
                        statement.setString(1, jobs.get(0).payloadJson());
                        bindOptions(statement, jobs.get(0));
                    }
                    case UNIFORM -> {
                        statement.setArray(1, array(connection, "text", jobs, NewJob::payloadJson));
                        bindOptions(statement, jobs.get(0));
                    }
                    case MIXED -> bindJobs(connection, statement, jobs);
                }
                statement.setString(10, queue);
                if (notify) {
                    statement.setString(11, channel);
                    statement.setString(12, queue);
                }
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

    /** How the rows of one insert travel as parameters (parameters 1 to 9 of the statement). */
    private enum RowShape {

        SINGLE(SINGLE_ROW), UNIFORM(UNIFORM_ROWS), MIXED(MIXED_ROWS);

        private final String rows;

        RowShape(String rows) {
            this.rows = rows;
        }

        static RowShape of(List<NewJob> jobs) {
            if (jobs.size() == 1) {
                return SINGLE;
            }
            return differOnlyInPayload(jobs) ? UNIFORM : MIXED;
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
    }
}
