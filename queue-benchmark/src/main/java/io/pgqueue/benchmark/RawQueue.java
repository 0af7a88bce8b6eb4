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

    static final String CLAIM_DELETE = """
            DELETE FROM pgqueue.job WHERE id IN (
                SELECT id FROM pgqueue.job WHERE queue = ? AND state = 'ready'
                ORDER BY priority DESC, run_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING id, payload
            """;

    /**
     * {@link #CLAIM_DELETE} with what pgqueue's TRANSACTIONAL claim guarantees beyond it, for measuring what
     * those guarantees cost: a savepoint before the delete (a failure is recorded after rolling back to it,
     * before any other worker can take the job back) and the counter delta, in one round trip.
     */
    static final String CLAIM_DELETE_GUARDED = """
            SAVEPOINT raw_claim;
            WITH claimed AS (
                DELETE FROM pgqueue.job WHERE id IN (
                    SELECT id FROM pgqueue.job WHERE queue = ? AND state = 'ready'
                    ORDER BY priority DESC, run_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
                RETURNING id, queue, payload
            ), counted AS (
                INSERT INTO pgqueue.queue_counter_delta (queue, ready, completed)
                SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
            )
            SELECT id, payload FROM claimed
            """;

    static final String CLAIM_LEASE = """
            UPDATE pgqueue.job SET state = 'running', attempts = attempts + 1, locked_by = ?,
                                   lease_until = now() + interval '60 seconds'
            WHERE id IN (
                SELECT id FROM pgqueue.job WHERE queue = ? AND state = 'ready'
                ORDER BY priority DESC, run_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING id, payload
            """;

    static final String DELETE_MANY = "DELETE FROM pgqueue.job WHERE id = ANY(?)";

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

    /** Deletes up to n ready jobs in the connection's open transaction and returns their ids. */
    static List<Long> claimDelete(PreparedStatement claim, String queue, int n) throws SQLException {
        claim.setString(1, queue);
        claim.setInt(2, n);
        return ids(claim);
    }

    /** As {@link #claimDelete}, with {@link #CLAIM_DELETE_GUARDED}: the savepoint's result, then the rows. */
    static List<Long> claimDeleteGuarded(PreparedStatement claim, String queue, int n) throws SQLException {
        claim.setString(1, queue);
        claim.setInt(2, n);
        claim.execute();
        if (!claim.getMoreResults()) {
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
