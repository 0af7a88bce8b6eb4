package io.pgqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The SQL of node membership: the node row and its heartbeat, lease renewal, rescue of jobs whose node or
 * lease is gone, and the release of unfinished jobs at shutdown.
 */
public class NodeStore {

    /**
     * One statement per heartbeat: marks the node alive (registering it again if a rescue removed it after a
     * long pause) and extends the leases of the jobs it is still running, never shortening a lease a handler
     * extended further.
     */
    private static final String HEARTBEAT = """
            WITH alive AS (
                INSERT INTO {schema}.node (id, host, pid) VALUES (?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()
                RETURNING id
            )
            UPDATE {schema}.job SET lease_until = greatest(lease_until, now() + ? * interval '1 millisecond')
            WHERE id = ANY(?) AND locked_by = (SELECT id FROM alive)
            """;

    private static final String EXTEND_LEASE = """
            UPDATE {schema}.job SET lease_until = greatest(lease_until, now() + ? * interval '1 millisecond')
            WHERE id = ? AND attempts = ? AND locked_by = ? AND state = 'running'
            """;

    /**
     * Releases running jobs whose lease expired or whose node stopped heart-beating, and forgets stale
     * nodes. The lost attempt stays counted: a job out of attempts goes dead instead. Every node runs this
     * concurrently, so it never waits for a row another statement holds ({@code SKIP LOCKED}): two rescuers
     * cannot deadlock, and a row being acknowledged right now is left to its owner.
     */
    private static final String RESCUE = """
            WITH stale AS (
                DELETE FROM {schema}.node
                WHERE id = ANY(ARRAY(SELECT id FROM {schema}.node
                                     WHERE heartbeat_at < now() - ? * interval '1 millisecond'
                                     FOR UPDATE SKIP LOCKED))
                RETURNING id
            ), rescued AS (
                UPDATE {schema}.job j
                SET state = CASE WHEN j.attempts >= coalesce(j.max_attempts, ?) THEN 'dead' ELSE 'ready' END,
                    locked_by = NULL, lease_until = NULL,
                    dead_at = CASE WHEN j.attempts >= coalesce(j.max_attempts, ?) THEN now() END,
                    last_error = 'Attempt ' || j.attempts || ' lost: ' ||
                                 CASE WHEN j.lease_until < now() THEN 'lease expired' ELSE 'node stopped' END
                WHERE j.id = ANY(ARRAY(
                    SELECT r.id FROM {schema}.job r
                    WHERE r.state = 'running'
                      AND (r.lease_until < now()
                           OR NOT EXISTS (SELECT 1 FROM {schema}.node n WHERE n.id = r.locked_by
                                          AND n.id NOT IN (SELECT id FROM stale)))
                    ORDER BY r.id FOR UPDATE SKIP LOCKED))
                RETURNING j.queue, j.state
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, running, ready, dead, failed, dead_lettered)
                SELECT queue, -count(*), count(*) FILTER (WHERE state = 'ready'), count(*) FILTER (WHERE state = 'dead'),
                       count(*), count(*) FILTER (WHERE state = 'dead')
                FROM rescued GROUP BY queue
            )/*end*/
            SELECT count(*) FROM rescued
            """;

    /**
     * Gives the given unfinished jobs back to the queue at shutdown, uncounting the interrupted attempt.
     */
    private static final String RELEASE = """
            WITH released AS (
                UPDATE {schema}.job SET state = 'ready', attempts = attempts - 1, locked_by = NULL, lease_until = NULL
                WHERE id = ANY(?) AND locked_by = ?
                RETURNING queue
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, running, ready)
                SELECT queue, -count(*), count(*) FROM released GROUP BY queue
            )/*end*/
            SELECT count(*) FROM released
            """;

    private static final String UNREGISTER = """
            DELETE FROM {schema}.node WHERE id = ?
            """;

    private final JdbcTemplate jdbc;

    private final String heartbeatSql;

    private final String extendLeaseSql;

    private final String rescueSql;

    private final String releaseSql;

    private final String unregisterSql;

    public NodeStore(DataSource dataSource, QueueTables tables) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.heartbeatSql = tables.sql(HEARTBEAT);
        this.extendLeaseSql = tables.sql(EXTEND_LEASE);
        this.rescueSql = tables.sql(RESCUE);
        this.releaseSql = tables.sql(RELEASE);
        this.unregisterSql = tables.sql(UNREGISTER);
    }

    /**
     * Registers the node or marks it alive, and renews the leases of the given running jobs.
     */
    public void heartbeat(NodeIdentity node, long leaseMillis, long[] runningJobIds) {
        jdbc.execute((Connection connection) -> {
            try (PreparedStatement statement = connection.prepareStatement(heartbeatSql)) {
                statement.setObject(1, node.id());
                statement.setString(2, node.host());
                statement.setLong(3, node.pid());
                statement.setLong(4, leaseMillis);
                statement.setArray(5, SqlArrays.bigints(connection, runningJobIds));
                return statement.executeUpdate();
            }
        });
    }

    /** Extends one job's lease, if this node still owns it in that attempt. */
    public boolean extendLease(UUID node, long jobId, int attempt, long leaseMillis) {
        return jdbc.update(extendLeaseSql, leaseMillis, jobId, attempt, node) > 0;
    }

    /**
     * Releases jobs of stale nodes and expired leases.
     * @return how many jobs were released or sent dead
     */
    public int rescue(long nodeTimeoutMillis, int defaultMaxAttempts) {
        Integer rescued = jdbc.queryForObject(rescueSql, Integer.class, nodeTimeoutMillis, defaultMaxAttempts,
                defaultMaxAttempts);
        return (rescued != null) ? rescued : 0;
    }

    /** Gives unfinished jobs back at shutdown. */
    public int release(UUID node, long[] jobIds) {
        Integer released = jdbc.execute((Connection connection) -> {
            try (PreparedStatement statement = connection.prepareStatement(releaseSql)) {
                statement.setArray(1, SqlArrays.bigints(connection, jobIds));
                statement.setObject(2, node);
                try (ResultSet rows = statement.executeQuery()) {
                    rows.next();
                    return rows.getInt(1);
                }
            }
        });
        return (released != null) ? released : 0;
    }

    public void unregister(UUID node) {
        jdbc.update(unregisterSql, node);
    }
}
