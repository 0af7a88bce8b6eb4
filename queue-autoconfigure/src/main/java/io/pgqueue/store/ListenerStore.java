package io.pgqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of the consuming side: claiming, completing and failing jobs. Every statement that moves jobs
 * between states appends its counter deltas in the same statement.
 */
public class ListenerStore {

    /**
     * Opens every claim: promotes due scheduled jobs of the queue to ready (visible to the next claim, so
     * the poller polls again at once when it promoted any).
     */
    private static final String PROMOTE_DUE = """
            WITH promoted AS (
                UPDATE {schema}.job SET state = 'ready'
                WHERE id = ANY(ARRAY(SELECT id FROM {schema}.job
                                     WHERE queue = ? AND state = 'scheduled' AND run_at <= now()
                                     ORDER BY run_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
                RETURNING queue
            )/*counters*/, promoted_counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, scheduled, ready)
                SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
            )/*end*/,
            """;

    /** Closes every claim: the claimed rows, then one row (id NULL) with how many jobs were promoted. */
    private static final String CLAIMED_AND_PROMOTED = """
            SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at,
                   now() AS claimed_at, NULL::bigint AS promoted
            FROM claimed
            UNION ALL
            SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, count(*) FROM promoted
            """;

    /**
     * The ready jobs a claim takes ({@code {ready_ids}} in the claims), in claim order, unless the queue is
     * paused cluster-wide. A job with a group key is taken only when no job of its group is running and no
     * earlier one is pending (a failed one waiting for its retry counts as pending when failures block the
     * group). Parameters: queue, queue, failures block, limit.
     */
    private static final String READY_IDS = """
            SELECT id FROM {schema}.job j
            WHERE j.queue = ? AND j.state = 'ready'
              AND NOT EXISTS (SELECT 1 FROM {schema}.queue_state s WHERE s.queue = ? AND s.paused)
              AND (j.group_key IS NULL OR NOT EXISTS (
                    SELECT 1 FROM {schema}.job g
                    WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.id <> j.id
                      AND (g.state = 'running'
                           OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR ?::boolean)))))
            ORDER BY j.priority DESC, j.run_at, j.id LIMIT ? FOR UPDATE SKIP LOCKED
            """;

    /**
     * Claims up to n ready jobs for this node with a lease. Its commit does not wait for the WAL flush
     * (synchronous_commit off for this transaction only): a claim lost in a database crash just leaves the
     * job ready to be claimed again, which at-least-once delivery allows; acknowledgements stay synchronous.
     */
    private static final String CLAIM_LEASE = PROMOTE_DUE + """
            claimed AS (
                UPDATE {schema}.job j
                SET state = 'running', attempts = j.attempts + 1, max_attempts = coalesce(j.max_attempts, ?),
                    locked_by = ?, lease_until = now() + ? * interval '1 millisecond'
                WHERE j.id = ANY(ARRAY({ready_ids}))
                  AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
                RETURNING j.id, j.queue, j.payload::text AS payload, j.payload_type, j.headers::text AS headers,
                          j.attempts, j.max_attempts, j.created_at, j.run_at
            )/*counters*/, claimed_counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, ready, running)
                SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
            )/*end*/
            """ + CLAIMED_AND_PROMOTED;

    /**
     * Transactional claim: deletes up to n ready jobs inside the caller's transaction and returns them. The
     * delete is the acknowledgement: it commits with the handler's own writes, or rolls back with them and
     * the jobs are ready again.
     */
    private static final String CLAIM_TRANSACTIONAL = PROMOTE_DUE + """
            claimed AS (
                DELETE FROM {schema}.job j
                WHERE j.id = ANY(ARRAY({ready_ids}))
                RETURNING j.id, j.queue, j.payload::text AS payload, j.payload_type, j.headers::text AS headers,
                          j.attempts + 1 AS attempts, coalesce(j.max_attempts, ?) AS max_attempts, j.created_at,
                          j.run_at, j.group_key, j.dedup_key
            )/*history*/, archived AS (
                INSERT INTO {schema}.job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                                  dedup_key, created_at)
                SELECT id, queue, payload::jsonb, payload_type, headers::jsonb, attempts, group_key, dedup_key,
                       created_at
                FROM claimed
            )/*end*//*counters*/, claimed_counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, ready, completed)
                SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
            )/*end*/
            """ + CLAIMED_AND_PROMOTED;

    /**
     * Deletes finished jobs that this node still owns in the attempt it ran. Rows are found by primary key
     * ({@code id = ANY}); the (id, attempt) pairs are checked through a hashed sub-plan (the {@code IS TRUE}
     * keeps the planner from turning it into a join, which it would plan as a nested loop over every pair
     * when its statistics still say "no running jobs" during a backlog). No {@code state = 'running'}
     * either: only running jobs have an owner, and that predicate would invite the partial lease index.
     */
    private static final String COMPLETE = """
            WITH done AS (
                DELETE FROM {schema}.job j
                WHERE j.id = ANY(?::bigint[]) AND j.locked_by = ?
                  AND ((j.id, j.attempts) IN (SELECT * FROM unnest(?::bigint[], ?::int[]))) IS TRUE
                RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key,
                          j.created_at
            )/*history*/, archived AS (
                INSERT INTO {schema}.job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                                  dedup_key, created_at)
                SELECT id, queue, payload, payload_type, headers, attempts, group_key, dedup_key, created_at FROM done
            )/*end*//*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, running, completed)
                SELECT queue, -count(*), count(*) FROM done GROUP BY queue
            )/*end*/
            SELECT count(*) FROM done
            """;


    /**
     * Records a failed attempt: dead, or back to scheduled/ready after the delay. A LEASE job must still be
     * running under this node and attempt; a TRANSACTIONAL job is ready again after the rollback and gets its
     * attempt counted here.
     */
    private static final String FAIL = """
            WITH failed AS (
                UPDATE {schema}.job
                SET state = CASE WHEN ?::boolean THEN 'dead'
                                 WHEN ?::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
                    run_at = CASE WHEN ?::boolean THEN run_at ELSE now() + ?::bigint * interval '1 millisecond' END,
                    attempts = attempts + ?, max_attempts = coalesce(max_attempts, ?),
                    locked_by = NULL, lease_until = NULL, last_error = ?,
                    dead_at = CASE WHEN ?::boolean THEN now() END
                WHERE id = ? AND attempts = ? AND state = ? AND locked_by IS NOT DISTINCT FROM ?
                RETURNING queue, state, ?::text AS from_state
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, running, ready, scheduled, dead, failed, dead_lettered)
                SELECT queue,
                       -count(*) FILTER (WHERE from_state = 'running'),
                       count(*) FILTER (WHERE state = 'ready') - count(*) FILTER (WHERE from_state = 'ready'),
                       count(*) FILTER (WHERE state = 'scheduled'),
                       count(*) FILTER (WHERE state = 'dead'),
                       count(*),
                       count(*) FILTER (WHERE state = 'dead')
                FROM failed GROUP BY queue
            )/*end*/
            SELECT count(*) FROM failed
            """;

    /** Serialises the throttled claims of one queue across the cluster, for one transaction. */
    private static final String THROTTLE_LOCK = """
            SELECT pg_advisory_xact_lock(hashtext(?))
            """;

    private static final String COUNT_RUNNING = """
            SELECT count(*) FROM {schema}.job WHERE queue = ? AND state = 'running'
            """;

    /** Starts in the current fixed window (windows aligned to the epoch, database clock). */
    private static final String RATE_WINDOW = """
            INSERT INTO {schema}.queue_rate AS r (queue, window_start, started)
            SELECT ?, to_timestamp(floor(extract(epoch FROM now()) * 1000 / w) * w / 1000.0), 0
            FROM (SELECT ?::bigint AS w) AS window_length
            ON CONFLICT (queue) DO UPDATE
                SET started = CASE WHEN r.window_start = excluded.window_start THEN r.started ELSE 0 END,
                    window_start = excluded.window_start
            RETURNING started
            """;

    private static final String RATE_STARTED = """
            UPDATE {schema}.queue_rate SET started = started + ? WHERE queue = ?
            """;

    private final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final String throttleLockSql;

    private final String countRunningSql;

    private final String rateWindowSql;

    private final String rateStartedSql;

    private final String claimLeaseSql;

    private final String claimTransactionalSql;

    private final String completeSql;

    private final String failSql;

    public ListenerStore(DataSource dataSource, QueueTables tables) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.throttleLockSql = tables.sql(THROTTLE_LOCK);
        this.countRunningSql = tables.sql(COUNT_RUNNING);
        this.rateWindowSql = tables.sql(RATE_WINDOW);
        this.rateStartedSql = tables.sql(RATE_STARTED);
        this.claimLeaseSql = tables.sql(CLAIM_LEASE.replace("{ready_ids}", READY_IDS));
        this.claimTransactionalSql = tables.sql(CLAIM_TRANSACTIONAL.replace("{ready_ids}", READY_IDS));
        this.completeSql = tables.sql(COMPLETE);
        this.failSql = tables.sql(FAIL);
    }

    /** Claims up to {@code limit} ready jobs for this node, leased for {@code leaseMillis}. */
    public Claim claimWithLease(String queue, int limit, UUID node, long leaseMillis, int defaultMaxAttempts,
            boolean groupFailuresBlock) {
        return claim(claimLeaseSql, (statement) -> {
            statement.setString(1, queue);
            statement.setInt(2, defaultMaxAttempts);
            statement.setObject(3, node);
            statement.setLong(4, leaseMillis);
            statement.setString(5, queue);
            statement.setString(6, queue);
            statement.setBoolean(7, groupFailuresBlock);
            statement.setInt(8, limit);
        });
    }

    /**
     * Claims like {@link #claimWithLease} for a queue with a cluster-wide cap on running jobs and/or a rate
     * limit. Throttled claims of one queue are serialised by an advisory lock held for one short transaction:
     * count the running jobs and the starts in the current window, claim at most what both allow, record
     * the starts.
     */
    public Claim claimThrottled(String queue, int limit, UUID node, long leaseMillis, int defaultMaxAttempts,
            boolean groupFailuresBlock, @Nullable Integer maxRunning, @Nullable RateLimit rate) {
        Claim claim = transactions.execute((status) -> {
            jdbc.queryForList(throttleLockSql, "pgqueue.throttle." + queue);
            int allowed = limit;
            if (maxRunning != null) {
                Integer running = jdbc.queryForObject(countRunningSql, Integer.class, queue);
                allowed = Math.min(allowed, maxRunning - ((running != null) ? running : 0));
            }
            if (rate != null) {
                Integer started = jdbc.queryForObject(rateWindowSql, Integer.class, queue, rate.window().toMillis());
                allowed = Math.min(allowed, rate.permits() - ((started != null) ? started : 0));
            }
            if (allowed <= 0) {
                return new Claim(List.of(), 0);
            }
            Claim claimed = claimWithLease(queue, allowed, node, leaseMillis, defaultMaxAttempts, groupFailuresBlock);
            if (rate != null && !claimed.jobs().isEmpty()) {
                jdbc.update(rateStartedSql, claimed.jobs().size(), queue);
            }
            return claimed;
        });
        return (claim != null) ? claim : new Claim(List.of(), 0);
    }

    /**
     * Claims and deletes up to {@code limit} ready jobs in the current transaction, which must be a
     * Spring-managed one on the same DataSource.
     */
    public Claim claimInTransaction(String queue, int limit, int defaultMaxAttempts, boolean groupFailuresBlock) {
        return claim(claimTransactionalSql, (statement) -> {
            statement.setString(1, queue);
            statement.setString(2, queue);
            statement.setString(3, queue);
            statement.setBoolean(4, groupFailuresBlock);
            statement.setInt(5, limit);
            statement.setInt(6, defaultMaxAttempts);
        });
    }

    /**
     * Deletes the given LEASE jobs if this node still owns them in the attempt it ran.
     * @return how many were deleted
     */
    public int complete(UUID node, long[] ids, int[] attempts) {
        Integer done = jdbc.execute((Connection connection) -> {
            try (PreparedStatement statement = connection.prepareStatement(completeSql)) {
                statement.setArray(1, SqlArrays.bigints(connection, ids));
                statement.setObject(2, node);
                statement.setArray(3, SqlArrays.bigints(connection, ids));
                statement.setArray(4, SqlArrays.ints(connection, attempts));
                return singleInt(statement);
            }
        });
        return (done != null) ? done : 0;
    }

    /**
     * Records a failed LEASE attempt, if this node still owns the job in that attempt.
     * @return whether the row was updated
     */
    public boolean failLeased(UUID node, FailureUpdate failure, int defaultMaxAttempts) {
        return fail(failure, 0, "running", node, defaultMaxAttempts);
    }

    /**
     * Records a failed TRANSACTIONAL attempt after its transaction rolled back (the row is ready again with
     * its attempts not yet counted).
     */
    public boolean failAfterRollback(FailureUpdate failure, int defaultMaxAttempts) {
        return fail(new FailureUpdate(failure.jobId(), failure.attempt() - 1, failure.retryDelay(), failure.error()), 1,
                "ready", null, defaultMaxAttempts);
    }

    private boolean fail(FailureUpdate failure, int attemptIncrement, String fromState, @Nullable UUID node,
            int defaultMaxAttempts) {
        long delayMillis = (failure.retryDelay() != null) ? failure.retryDelay().toMillis() : 0L;
        Integer updated = jdbc.execute((Connection connection) -> {
            try (PreparedStatement statement = connection.prepareStatement(failSql)) {
                int i = 0;
                statement.setBoolean(++i, failure.dead());
                statement.setLong(++i, delayMillis);
                statement.setBoolean(++i, failure.dead());
                statement.setLong(++i, delayMillis);
                statement.setInt(++i, attemptIncrement);
                statement.setInt(++i, defaultMaxAttempts);
                statement.setString(++i, failure.error());
                statement.setBoolean(++i, failure.dead());
                statement.setLong(++i, failure.jobId());
                statement.setInt(++i, failure.attempt());
                statement.setString(++i, fromState);
                statement.setObject(++i, node);
                statement.setString(++i, fromState);
                return singleInt(statement);
            }
        });
        return updated != null && updated > 0;
    }

    private Claim claim(String sql, StatementBinder binder) {
        Claim claim = jdbc.execute((Connection connection) -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                binder.bind(statement);
                List<ClaimedJob> jobs = new ArrayList<>();
                long promoted = 0;
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        long id = rows.getLong("id");
                        if (rows.wasNull()) {
                            promoted = rows.getLong("promoted");
                        }
                        else {
                            jobs.add(new ClaimedJob(id, rows.getString("queue"), rows.getString("payload"),
                                    rows.getString("payload_type"), rows.getString("headers"), rows.getInt("attempts"),
                                    rows.getInt("max_attempts"), rows.getTimestamp("created_at").toInstant(),
                                    rows.getTimestamp("run_at").toInstant(),
                                    rows.getTimestamp("claimed_at").toInstant()));
                        }
                    }
                }
                return new Claim(jobs, promoted);
            }
        });
        return (claim != null) ? claim : new Claim(List.of(), 0);
    }

    private static int singleInt(PreparedStatement statement) throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /**
     * The result of a claim.
     *
     * @param jobs the jobs claimed
     * @param promoted how many scheduled jobs became ready in the same statement
     */
    public record Claim(List<ClaimedJob> jobs, long promoted) {

        public Claim {
            jobs = List.copyOf(jobs);
        }
    }

    @FunctionalInterface
    private interface StatementBinder {

        void bind(PreparedStatement statement) throws SQLException;
    }
}
