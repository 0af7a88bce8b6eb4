package io.pgqueue.internal.persistence;

import java.util.List;
import java.util.Map;

/**
 * The job row's columns as pgqueue's statements read and return them: what a claim returns, what a claim taken
 * back restores, what a finishing statement hands to the history. Their one owner: the statement classes take
 * them from here.
 */
final class JobColumns {

    private JobColumns() {
    }

    /** The columns of the rows a claim returns. */
    static final List<String> CLAIMED = List.of("id", "queue", "payload", "payload_type", "headers", "attempts",
            "max_attempts", "created_at", "run_at", "claimed_at", "timeout_ms", "priority", "workflow_id", "batch_id",
            "fairness_key");

    /** The columns a claim returns. */
    static final String CLAIMED_COLUMNS = "SELECT " + String.join(", ", CLAIMED) + " FROM claimed";

    /** What a TRANSACTIONAL claim returns: the claimed columns, and the rest of each row to restore it from. */
    static final String CLAIMED_WITH_RESTS = "SELECT " + String.join(", ", CLAIMED) + ", rest FROM claimed";

    /**
     * The columns of a job's row that a claimed job does not carry as they are in the row, with their types: a
     * TRANSACTIONAL claim returns them as one JSON array (cheap to produce: most are null), so that a claim taken
     * back restores every column ({@code ClaimRestoreColumnsTests} checks that these, {@link #RESTORED_FROM_JOB}
     * and the state are all the job table's columns, with these types).
     */
    static final Map<String, String> RESTORED_FROM_REST = restColumns();

    /** The columns a claim taken back restores from the claimed job. */
    static final List<String> RESTORED_FROM_JOB = List.of("id", "queue", "payload", "payload_type", "headers",
            "attempts", "created_at", "run_at", "timeout_ms", "workflow_id", "batch_id", "fairness_key");


    static final String REST_OF_ROW = "json_build_array(" + String.join(", ",
            RESTORED_FROM_REST.keySet().stream().map((column) -> "j." + column).toList()) + ")::text";


    private static Map<String, String> restColumns() {
        Map<String, String> columns = new java.util.LinkedHashMap<>();
        columns.put("priority", "smallint");
        columns.put("max_attempts", "integer");
        columns.put("dedup_key", "text");
        columns.put("group_key", "text");
        columns.put("locked_by", "uuid");
        columns.put("lease_until", "timestamptz");
        columns.put("last_error", "text");
        columns.put("dead_at", "timestamptz");
        columns.put("cancel_requested", "boolean");
        columns.put("attempted_at", "timestamptz");
        columns.put("progress_percent", "smallint");
        columns.put("progress_message", "text");
        columns.put("debounce_key", "text");
        columns.put("pending_parents", "integer");
        return java.util.Collections.unmodifiableMap(columns);
    }

    /**
     * What a fair claim returns: the claimed rows, or one row of nulls when it claimed none, each with the keys
     * the claim found empty ({@code fair_emptied}) and whether it looked at one uncapped key alone ({@code alone}).
     */
    static final String FAIR_CLAIMED_COLUMNS = "SELECT "
            + String.join(", ", CLAIMED.stream().map((column) -> "c." + column).toList())
            + ", e.keys AS emptied, e.alone FROM (SELECT array_agg(key) AS keys, "
            + "(SELECT count(*) = 1 AND bool_and(cap IS NULL) FROM fair_candidates) AS alone FROM fair_emptied) e "
            + "LEFT JOIN claimed c ON true";

    /** What a LEASE claim does to the rows it takes (the claim's SET clause). */
    static final String LEASE_SET = """
            SET state = 'running', attempts = j.attempts + 1,
                max_attempts = coalesce(j.max_attempts, :default_max_attempts),
                locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
                attempted_at = now(), progress_percent = NULL, progress_message = NULL""";

    /** What the LEASE claim's changed rows return. */
    static final String LEASE_RETURNING = """
            RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
                      j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
                      j.priority, j.workflow_id, j.batch_id, j.fairness_key""";

    /** What the TRANSACTIONAL claim's deleted rows return (for the history too). */
    static final String DELETE_RETURNING = """
            RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
                      j.attempts + 1 AS attempts, coalesce(j.max_attempts, :default_max_attempts) AS max_attempts,
                      j.created_at, j.run_at, j.group_key, j.dedup_key, now() AS claimed_at, j.timeout_ms,
                      now() AS attempted_at, j.last_error, 'completed' AS state, j.priority, j.workflow_id, j.batch_id,
                      j.fairness_key""";

    /**
     * What a TRANSACTIONAL claim before its savepoint returns of its deleted rows: {@link #DELETE_RETURNING} and
     * the rest of each row ({@link #REST_OF_ROW}), which restores the row if the claim is taken back.
     */
    static final String DELETE_RETURNING_WITH_REST = DELETE_RETURNING + ", " + REST_OF_ROW + " AS rest";

    /** What a statement that finishes jobs returns of each row, for the history (with the finished state). */
    static final String FINISHED_COLUMNS = """
            j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
            j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id""";
}
