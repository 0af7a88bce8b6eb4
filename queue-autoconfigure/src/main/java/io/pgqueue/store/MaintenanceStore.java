package io.pgqueue.store;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The SQL of the periodic, cluster-safe maintenance: promoting due jobs of every queue, folding the counter
 * deltas, and reconciling the counters with the job table.
 */
public class MaintenanceStore {

    /** Promotes due scheduled jobs of all queues (claims promote their own queue; this covers the rest). */
    private static final String PROMOTE_DUE = """
            WITH promoted AS (
                UPDATE {schema}.job SET state = 'ready'
                WHERE id = ANY(ARRAY(SELECT id FROM {schema}.job WHERE state = 'scheduled' AND run_at <= now()
                                     ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED))
                RETURNING queue
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, scheduled, ready)
                SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
            )/*end*/
            SELECT count(*) FROM promoted
            """;

    /**
     * Folds every committed delta into the counters: one squeezer at a time across the cluster (advisory
     * lock), others skip. Writers never touch queue_counter, so they never wait for this.
     */
    private static final String SQUEEZE = """
            WITH squeezer AS (
                SELECT pg_try_advisory_xact_lock(hashtext(?)) AS granted
            ), moved AS (
                DELETE FROM {schema}.queue_counter_delta WHERE (SELECT granted FROM squeezer)
                RETURNING queue, scheduled, ready, running, dead, enqueued, completed, failed, dead_lettered
            ), summed AS (
                SELECT queue, sum(scheduled) AS scheduled, sum(ready) AS ready, sum(running) AS running,
                       sum(dead) AS dead, sum(enqueued) AS enqueued, sum(completed) AS completed,
                       sum(failed) AS failed, sum(dead_lettered) AS dead_lettered
                FROM moved GROUP BY queue
            ), folded AS (
                INSERT INTO {schema}.queue_counter AS c (queue, scheduled, ready, running, dead, enqueued, completed,
                                                         failed, dead_lettered)
                SELECT queue, scheduled, ready, running, dead, enqueued, completed, failed, dead_lettered FROM summed
                ON CONFLICT (queue) DO UPDATE SET
                    scheduled = c.scheduled + excluded.scheduled, ready = c.ready + excluded.ready,
                    running = c.running + excluded.running, dead = c.dead + excluded.dead,
                    enqueued = c.enqueued + excluded.enqueued, completed = c.completed + excluded.completed,
                    failed = c.failed + excluded.failed, dead_lettered = c.dead_lettered + excluded.dead_lettered,
                    updated_at = now()
                RETURNING queue
            )
            SELECT (SELECT count(*) FROM moved) AS deltas
            """;

    /**
     * Compares the state counts with COUNT(*) of the job table and appends the difference as a correction
     * delta. One statement sees one snapshot, in which rows and deltas agree exactly unless something
     * changed the table behind pgqueue's back; later changes carry their own deltas, so the correction is
     * exact under concurrent traffic too. Scans the job table: run it rarely.
     */
    private static final String RECONCILE = """
            WITH actual AS (
                SELECT queue, count(*) FILTER (WHERE state = 'scheduled') AS scheduled,
                       count(*) FILTER (WHERE state = 'ready') AS ready,
                       count(*) FILTER (WHERE state = 'running') AS running,
                       count(*) FILTER (WHERE state = 'dead') AS dead
                FROM {schema}.job GROUP BY queue
            ), recorded AS (
                SELECT queue, sum(scheduled) AS scheduled, sum(ready) AS ready, sum(running) AS running,
                       sum(dead) AS dead
                FROM (SELECT queue, scheduled, ready, running, dead FROM {schema}.queue_counter
                      UNION ALL
                      SELECT queue, scheduled, ready, running, dead FROM {schema}.queue_counter_delta) AS c
                GROUP BY queue
            ), drift AS (
                SELECT coalesce(a.queue, r.queue) AS queue,
                       coalesce(a.scheduled, 0) - coalesce(r.scheduled, 0) AS scheduled,
                       coalesce(a.ready, 0) - coalesce(r.ready, 0) AS ready,
                       coalesce(a.running, 0) - coalesce(r.running, 0) AS running,
                       coalesce(a.dead, 0) - coalesce(r.dead, 0) AS dead
                FROM actual a FULL JOIN recorded r ON a.queue = r.queue
            ), corrected AS (
                INSERT INTO {schema}.queue_counter_delta (queue, scheduled, ready, running, dead)
                SELECT queue, scheduled, ready, running, dead FROM drift
                WHERE scheduled <> 0 OR ready <> 0 OR running <> 0 OR dead <> 0
                RETURNING queue, scheduled, ready, running, dead
            )
            SELECT queue, scheduled, ready, running, dead FROM corrected ORDER BY queue
            """;

    /** Deletes up to a batch of jobs dead for longer than the retention. */
    private static final String DELETE_OLD_DEAD = """
            WITH purged AS (
                DELETE FROM {schema}.job WHERE id = ANY(ARRAY(
                    SELECT id FROM {schema}.job
                    WHERE state = 'dead' AND coalesce(dead_at, created_at) < now() - ? * interval '1 millisecond'
                    LIMIT ? FOR UPDATE SKIP LOCKED))
                RETURNING queue
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, dead)
                SELECT queue, -count(*) FROM purged GROUP BY queue
            )/*end*/
            SELECT count(*) FROM purged
            """;

    /** Deletes up to a batch of history rows older than the retention. */
    private static final String DELETE_OLD_HISTORY = """
            WITH purged AS (
                DELETE FROM {schema}.job_history WHERE id = ANY(ARRAY(
                    SELECT id FROM {schema}.job_history WHERE finished_at < now() - ? * interval '1 millisecond'
                    ORDER BY finished_at LIMIT ? FOR UPDATE SKIP LOCKED))
                RETURNING id
            )
            SELECT count(*) FROM purged
            """;

    private final JdbcTemplate jdbc;

    private final QueueTables tables;

    public MaintenanceStore(DataSource dataSource, QueueTables tables) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.tables = tables;
    }

    /** Promotes up to {@code limit} due scheduled jobs of any queue; returns how many. */
    public int promoteDue(int limit) {
        Integer promoted = jdbc.queryForObject(tables.sql(PROMOTE_DUE), Integer.class, limit);
        return (promoted != null) ? promoted : 0;
    }

    /** Folds the counter deltas; returns how many delta rows were folded (0 when another node held the lock). */
    public long squeeze() {
        Long deltas = jdbc.queryForObject(tables.sql(SQUEEZE), Long.class, "pgqueue.squeeze." + tables.schema());
        return (deltas != null) ? deltas : 0;
    }

    /** Deletes one batch of dead jobs older than {@code retention}; returns how many. */
    public int deleteOldDead(java.time.Duration retention, int batchSize) {
        Integer deleted = jdbc.queryForObject(tables.sql(DELETE_OLD_DEAD), Integer.class, retention.toMillis(),
                batchSize);
        return (deleted != null) ? deleted : 0;
    }

    /** Deletes one batch of history rows older than {@code retention}; returns how many. */
    public int deleteOldHistory(java.time.Duration retention, int batchSize) {
        Integer deleted = jdbc.queryForObject(tables.sql(DELETE_OLD_HISTORY), Integer.class, retention.toMillis(),
                batchSize);
        return (deleted != null) ? deleted : 0;
    }

    /** Repairs counter drift and returns it, one entry per queue that drifted. */
    public List<QueueCounts> reconcile() {
        List<QueueCounts> drift = new ArrayList<>();
        jdbc.query(tables.sql(RECONCILE), (rows) -> {
            drift.add(new QueueCounts(rows.getString("queue"), rows.getLong("scheduled"), rows.getLong("ready"),
                    rows.getLong("running"), rows.getLong("dead"), 0, 0, 0, 0));
        });
        return drift;
    }
}
