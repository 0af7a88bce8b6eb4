package io.pgqueue.benchmark;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The raw-SQL baseline: the best hand-written statements for the same work, on the same pgqueue.job table,
 * through plain JDBC, without anything pgqueue adds (counters, notifications, dedup, JSON mapping).
 */
final class RawQueue {

    static final String INSERT_ONE = "INSERT INTO pgqueue.job (queue, state, payload) VALUES (?, 'ready', ?::jsonb)";

    /** The guarded insert of the rows of a CTE {@code input} (queue, payload, due), as the CTE {@code inserted}. */
    private static final String INSERTED_FROM_INPUT = """
            inserted AS (
                INSERT INTO pgqueue.job (queue, state, run_at, payload)
                SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, due, payload FROM input
                ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
                RETURNING id, queue, state
            )""";

    /**
     * {@link #INSERT_ONE} with what pgqueue's send guarantees beyond it, for measuring what those guarantees
     * cost: the database clock decides ready or scheduled, the dedup arbiter is checked, the new id comes
     * back, and the queue's counter delta is appended, in one statement.
     */
    static final String INSERT_ONE_GUARDED = """
            WITH input AS (
                SELECT ?::text AS queue, ?::jsonb AS payload, now() AS due
            ), """ + INSERTED_FROM_INPUT + """
            , counted AS (
                INSERT INTO pgqueue.queue_counter_delta (queue, ready, scheduled, enqueued)
                SELECT queue, (state = 'ready')::int, (state = 'scheduled')::int, 1 FROM inserted
            )
            SELECT id FROM inserted
            """;

    static final String CLAIM_DELETE = """
            DELETE FROM pgqueue.job WHERE id = ANY(ARRAY(
                SELECT id FROM pgqueue.job WHERE queue = ? AND state = 'ready'
                ORDER BY priority DESC, run_at, id LIMIT ? FOR UPDATE SKIP LOCKED))
            RETURNING id, payload
            """;

    /**
     * {@link #CLAIM_DELETE} with what pgqueue's TRANSACTIONAL claim guarantees beyond it, for measuring what
     * those guarantees cost: the counter delta and a savepoint after the delete, in one round trip (a failure
     * rolls the handlers' writes back to it and records itself in the same transaction, before any other
     * worker can take the job back). The savepoint comes after the claim, as pgqueue's does: set before it,
     * the claimed rows' deletions belong to a subtransaction, which every later reader of those rows must
     * resolve, and the baseline would be slower than the best hand-written statement with these guarantees.
     */
    static final String CLAIM_DELETE_GUARDED = """
            WITH claimed AS (
                DELETE FROM pgqueue.job WHERE id = ANY(ARRAY(
                    SELECT id FROM pgqueue.job WHERE queue = ? AND state = 'ready'
                    ORDER BY priority DESC, run_at, id LIMIT ? FOR UPDATE SKIP LOCKED))
                RETURNING id, queue, payload
            ), counted AS (
                INSERT INTO pgqueue.queue_counter_delta (queue, ready, completed)
                SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
            )
            SELECT id, payload FROM claimed;
            SAVEPOINT raw_claim
            """;

    static final String CLAIM_LEASE = """
            UPDATE pgqueue.job SET state = 'running', attempts = attempts + 1, locked_by = ?,
                                   lease_until = now() + interval '60 seconds'
            WHERE id = ANY(ARRAY(
                SELECT id FROM pgqueue.job WHERE queue = ? AND state = 'ready'
                ORDER BY priority DESC, run_at, id LIMIT ? FOR UPDATE SKIP LOCKED))
            RETURNING id, payload
            """;

    /**
     * {@link #CLAIM_LEASE} with what pgqueue's LEASE claim guarantees beyond it: the counter delta, and the
     * attempt returned for the acknowledgement's ownership check.
     */
    static final String CLAIM_LEASE_GUARDED = """
            WITH claimed AS (
                UPDATE pgqueue.job SET state = 'running', attempts = attempts + 1, locked_by = ?,
                                       lease_until = now() + interval '60 seconds'
                WHERE id = ANY(ARRAY(
                    SELECT id FROM pgqueue.job WHERE queue = ? AND state = 'ready'
                    ORDER BY priority DESC, run_at, id LIMIT ? FOR UPDATE SKIP LOCKED))
                RETURNING id, queue, payload, attempts
            ), counted AS (
                INSERT INTO pgqueue.queue_counter_delta (queue, ready, running)
                SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
            )
            SELECT id, payload, attempts FROM claimed
            """;

    static final String DELETE_MANY = "DELETE FROM pgqueue.job WHERE id = ANY(?)";

    /**
     * {@link #DELETE_MANY} with what pgqueue's acknowledgement guarantees beyond it: only jobs this node still
     * owns in the attempt it ran are deleted, and the counter delta is appended.
     */
    static final String DELETE_MANY_GUARDED = """
            WITH done AS (
                DELETE FROM pgqueue.job j
                WHERE j.id = ANY(?) AND j.locked_by = ?
                  AND ((j.id, j.attempts) IN (SELECT * FROM unnest(?::bigint[], ?::int[]))) IS TRUE
                RETURNING j.queue
            ), counted AS (
                INSERT INTO pgqueue.queue_counter_delta (queue, running, completed)
                SELECT queue, -count(*), count(*) FROM done GROUP BY queue
            )
            SELECT count(*) FROM done
            """;

    /** Keeps the payloads' reads observable (never read back). */
    static final java.util.concurrent.atomic.LongAdder PAYLOAD_CHARS = new java.util.concurrent.atomic.LongAdder();

    private RawQueue() {
    }

    /** Multi-row INSERT ... VALUES for exactly {@code rows} rows. */
    static String insertMany(int rows) {
        StringBuilder sql = new StringBuilder("INSERT INTO pgqueue.job (queue, state, payload) VALUES ");
        for (int i = 0; i < rows; i++) {
            sql.append((i == 0) ? "" : ", ").append("(?, 'ready', ?::jsonb)");
        }
        return sql.toString();
    }

    /** As {@link #insertMany}, with the guarantees of {@link #INSERT_ONE_GUARDED} for every row. */
    static String insertManyGuarded(int rows) {
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < rows; i++) {
            values.append((i == 0) ? "" : ", ").append("(?, ?::jsonb)");
        }
        // formatted() binds to the last text block only: the VALUES list is appended, not formatted in
        return """
                WITH input AS (
                    SELECT v.queue::text AS queue, v.payload::jsonb AS payload, now() AS due
                    FROM (VALUES """ + values + """
                ) AS v(queue, payload)
                ), """ + INSERTED_FROM_INPUT + """
                , counted AS (
                    INSERT INTO pgqueue.queue_counter_delta (queue, ready, scheduled, enqueued)
                    SELECT queue, count(*) FILTER (WHERE state = 'ready'), count(*) FILTER (WHERE state = 'scheduled'),
                           count(*)
                    FROM inserted GROUP BY queue
                )
                SELECT id FROM inserted
                """;
    }

    /** Deletes up to n ready jobs in the connection's open transaction and returns their ids. */
    static List<Long> claimDelete(PreparedStatement claim, String queue, int n) throws SQLException {
        claim.setString(1, queue);
        claim.setInt(2, n);
        return ids(claim);
    }

    /** As {@link #claimDelete}, with {@link #CLAIM_DELETE_GUARDED}: the rows, then the savepoint's result. */
    static List<Long> claimDeleteGuarded(PreparedStatement claim, String queue, int n) throws SQLException {
        claim.setString(1, queue);
        claim.setInt(2, n);
        if (!claim.execute()) {
            throw new IllegalStateException("The guarded claim returned no rows");
        }
        return ids(claim.getResultSet());
    }

    /** Leases up to n ready jobs (autocommit) and returns their ids. */
    static List<Long> claimLease(PreparedStatement claim, UUID node, String queue, int n) throws SQLException {
        claim.setObject(1, node);
        claim.setString(2, queue);
        claim.setInt(3, n);
        return ids(claim);
    }

    static void deleteMany(Connection connection, PreparedStatement delete, List<Long> ids) throws SQLException {
        Array array = connection.createArrayOf("int8", ids.toArray());
        delete.setArray(1, array);
        delete.executeUpdate();
    }

    /**
     * Leases up to n ready jobs with {@link #CLAIM_LEASE_GUARDED} and deletes them with
     * {@link #DELETE_MANY_GUARDED} (autocommit); returns how many.
     */
    static int claimAndDeleteLeaseGuarded(Connection connection, PreparedStatement claim, PreparedStatement delete,
            UUID node, String queue, int n) throws SQLException {
        claim.setObject(1, node);
        claim.setString(2, queue);
        claim.setInt(3, n);
        List<Long> ids = new ArrayList<>();
        List<Integer> attempts = new ArrayList<>();
        try (ResultSet rows = claim.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
                PAYLOAD_CHARS.add(rows.getString(2).length());
                attempts.add(rows.getInt(3));
            }
        }
        if (!ids.isEmpty()) {
            Array idArray = connection.createArrayOf("int8", ids.toArray());
            delete.setArray(1, idArray);
            delete.setObject(2, node);
            delete.setArray(3, idArray);
            delete.setArray(4, connection.createArrayOf("int4", attempts.toArray()));
            delete.executeQuery().close();
        }
        return ids.size();
    }

    /** The claimed ids; each payload is read as a String, as any consumer must before it can handle the job. */
    private static List<Long> ids(PreparedStatement statement) throws SQLException {
        return ids(statement.executeQuery());
    }

    private static List<Long> ids(ResultSet result) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (ResultSet rows = result) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
                PAYLOAD_CHARS.add(rows.getString(2).length());
            }
        }
        return ids;
    }
}
