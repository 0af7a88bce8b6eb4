package io.pgqueue.store;

import java.sql.ResultSet;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The SQL of reading queue state and of operating queues: counts, lag, dead jobs, pause, retry, purge.
 * Reads touch the counters tables and index ranges only, never a scan of the job table.
 */
public class AdminStore {

    private static final String COUNTS = """
            SELECT queue, sum(scheduled) AS scheduled, sum(ready) AS ready, sum(running) AS running, sum(dead) AS dead,
                   sum(enqueued) AS enqueued, sum(completed) AS completed, sum(failed) AS failed,
                   sum(dead_lettered) AS dead_lettered
            FROM (SELECT queue, scheduled, ready, running, dead, enqueued, completed, failed, dead_lettered
                  FROM {schema}.queue_counter
                  UNION ALL
                  SELECT queue, scheduled, ready, running, dead, enqueued, completed, failed, dead_lettered
                  FROM {schema}.queue_counter_delta) AS counts
            GROUP BY queue ORDER BY queue
            """;

    /** Lag of every queue that has ready jobs: one loose index scan per queue. */
    private static final String LAGS = """
            SELECT queue, extract(epoch FROM now() - {schema}.oldest_ready_run_at(queue)) AS lag_seconds
            FROM (SELECT queue FROM {schema}.queue_counter UNION SELECT queue FROM {schema}.queue_counter_delta) AS q
            """;

    private static final String PAUSE = """
            INSERT INTO {schema}.queue_state (queue, paused) VALUES (?, ?)
            ON CONFLICT (queue) DO UPDATE SET paused = excluded.paused, updated_at = now()
            """;

    private static final String PAUSED_QUEUES = """
            SELECT queue FROM {schema}.queue_state WHERE paused
            """;

    private static final String DEAD_IDS = """
            SELECT id FROM {schema}.job WHERE queue = ? AND state = 'dead' ORDER BY id
            """;

    private static final String DEAD_JOBS = """
            SELECT id, queue, attempts, last_error, payload::text AS payload, payload_type, created_at
            FROM {schema}.job WHERE queue = ? AND state = 'dead' ORDER BY id DESC OFFSET ? LIMIT ?
            """;

    /**
     * Gives dead jobs of a queue (one, or all when the id is null) a fresh set of attempts. A dead job whose
     * dedup key is held by a live job stays dead, and of several dead jobs sharing a key only the newest is
     * retried.
     */
    private static final String RETRY_DEAD = """
            WITH retried AS (
                UPDATE {schema}.job j SET state = 'ready', attempts = 0, run_at = now(), dead_at = NULL
                WHERE j.id IN (
                    SELECT DISTINCT ON (coalesce(d.dedup_key, d.id::text)) d.id FROM {schema}.job d
                    WHERE d.queue = ? AND d.state = 'dead' AND (d.id = ? OR ?::bigint IS NULL)
                      AND (d.dedup_key IS NULL OR NOT EXISTS (
                            SELECT 1 FROM {schema}.job live
                            WHERE live.queue = d.queue AND live.dedup_key = d.dedup_key AND live.state <> 'dead'))
                    ORDER BY coalesce(d.dedup_key, d.id::text), d.id DESC)
                  AND j.state = 'dead'
                RETURNING j.queue
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, dead, ready)
                SELECT queue, -count(*), count(*) FROM retried GROUP BY queue
            )/*end*/
            SELECT count(*) FROM retried
            """;

    /** Deletes up to a batch of dead jobs of a queue, optionally only those older than a cutoff. */
    private static final String PURGE_DEAD = """
            WITH purged AS (
                DELETE FROM {schema}.job WHERE id = ANY(ARRAY(
                    SELECT id FROM {schema}.job WHERE queue = ? AND state = 'dead' AND (id = ? OR ?::bigint IS NULL)
                    ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED))
                RETURNING queue
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, dead)
                SELECT queue, -count(*) FROM purged GROUP BY queue
            )/*end*/
            SELECT count(*) FROM purged
            """;

    /** Exact pending work of a queue, for tests: ready, running, or scheduled and due. */
    private static final String PENDING_NOW = """
            SELECT count(*) FROM {schema}.job
            WHERE queue = ? AND (state IN ('ready', 'running') OR (state = 'scheduled' AND run_at <= now()))
            """;

    private static final String QUEUES_WITH_PENDING = """
            SELECT DISTINCT queue FROM {schema}.job
            WHERE state IN ('ready', 'running') OR (state = 'scheduled' AND run_at <= now())
            ORDER BY queue
            """;

    private static final String NODES = """
            SELECT id, host, pid, started_at, heartbeat_at FROM {schema}.node ORDER BY started_at, id
            """;

    private final JdbcTemplate jdbc;

    private final QueueTables tables;

    private final String historyTable;

    public AdminStore(DataSource dataSource, QueueTables tables, String historyTable) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.tables = tables;
        this.historyTable = QueueTables.validateSchemaName(historyTable);
    }

    /** Counts of every queue the counters know, in name order. */
    public List<QueueCounts> counts() {
        return jdbc.query(tables.sql(COUNTS), (rows, n) -> new QueueCounts(rows.getString("queue"),
                rows.getLong("scheduled"), rows.getLong("ready"), rows.getLong("running"), rows.getLong("dead"),
                rows.getLong("enqueued"), rows.getLong("completed"), rows.getLong("failed"),
                rows.getLong("dead_lettered")));
    }

    /** Age of the oldest ready job per queue; queues without ready jobs have no entry. */
    public Map<String, Duration> lags() {
        Map<String, Duration> lags = new LinkedHashMap<>();
        jdbc.query(tables.sql(LAGS), (ResultSet rows) -> {
            double seconds = rows.getDouble("lag_seconds");
            if (!rows.wasNull()) {
                lags.put(rows.getString("queue"), Duration.ofNanos((long) (Math.max(0, seconds) * 1e9)));
            }
        });
        return lags;
    }

    public void setPaused(String queue, boolean paused) {
        jdbc.update(tables.sql(PAUSE), queue, paused);
    }

    public Set<String> pausedQueues() {
        return new TreeSet<>(jdbc.queryForList(tables.sql(PAUSED_QUEUES), String.class));
    }

    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        return jdbc.query(tables.sql(DEAD_JOBS), (rows, n) -> new DeadJob(rows.getLong("id"), rows.getString("queue"),
                rows.getInt("attempts"), rows.getString("last_error"), rows.getString("payload"),
                rows.getString("payload_type"), rows.getTimestamp("created_at").toInstant()), queue, offset, limit);
    }

    /**
     * Makes dead jobs ready again; one job when {@code jobId} is given, else all of the queue. When a live job
     * takes a dedup key concurrently, the jobs are retried one by one and the one that collides stays dead.
     */
    public int retryDead(String queue, @Nullable Long jobId) {
        try {
            return count(tables.sql(RETRY_DEAD), queue, jobId, jobId);
        }
        catch (DuplicateKeyException ex) {
            if (jobId != null) {
                return 0;
            }
            int retried = 0;
            for (Long id : jdbc.queryForList(tables.sql(DEAD_IDS), Long.class, queue)) {
                retried += retryDead(queue, id);
            }
            return retried;
        }
    }

    /** Deletes up to {@code batchSize} dead jobs; one job when {@code jobId} is given. */
    public int purgeDead(String queue, @Nullable Long jobId, int batchSize) {
        return count(tables.sql(PURGE_DEAD), queue, jobId, jobId, batchSize);
    }

    /** Exact count of a queue's ready, running and due jobs (scans the queue's jobs: for tests). */
    public long pendingNow(String queue) {
        Long pending = jdbc.queryForObject(tables.sql(PENDING_NOW), Long.class, queue);
        return (pending != null) ? pending : 0;
    }

    /** Queues with ready, running or due jobs (scans the job table: for tests). */
    public List<String> queuesWithPendingJobs() {
        return jdbc.queryForList(tables.sql(QUEUES_WITH_PENDING), String.class);
    }

    public List<NodeInfo> nodes() {
        return jdbc.query(tables.sql(NODES), (rows, n) -> new NodeInfo(rows.getObject("id", UUID.class),
                rows.getString("host"), rows.getLong("pid"), rows.getTimestamp("started_at").toInstant(),
                rows.getTimestamp("heartbeat_at").toInstant()));
    }

    /** The last applied migration version, or null when pgqueue's Flyway history table does not exist. */
    public @Nullable String schemaVersion() {
        String qualified = tables.sql("{schema}.\"" + historyTable + "\"");
        Boolean exists = jdbc.queryForObject("SELECT to_regclass(?) IS NOT NULL", Boolean.class, qualified);
        if (!Boolean.TRUE.equals(exists)) {
            return null;
        }
        List<String> versions = jdbc.queryForList("SELECT version FROM " + qualified
                + " WHERE success AND version IS NOT NULL ORDER BY installed_rank DESC LIMIT 1", String.class);
        return versions.isEmpty() ? null : versions.get(0);
    }

    private int count(String sql, Object... arguments) {
        Integer count = jdbc.queryForObject(sql, Integer.class, arguments);
        return (count != null) ? count : 0;
    }

}
