package io.pgqueue.internal.persistence;

import java.time.Duration;

/**
 * The JDBC {@link HistoryRepository}, and the one place that holds the text of the statements on
 * {@code job_history}: the copy that the finishing statements of {@link JdbcJobRepository} embed, the finished
 * rows that {@link JobLookups} reads, the output update and the retention delete.
 */
final class JdbcHistoryRepository implements HistoryRepository {

    /** The finished jobs' columns as a lookup reads them; the same shape as the live ones of the job table. */
    static final String FINISHED_COLUMNS = """
            SELECT id, queue, state, {payload} AS payload, payload_type, %s, attempts, NULL::int AS max_attempts,
                   0::smallint AS priority, coalesce(run_at, created_at) AS run_at, created_at, attempted_at,
                   finished_at, {error} AS last_error, {output} AS output, NULL::smallint AS progress_percent,
                   NULL::text AS progress_message, false AS cancel_requested, group_key, dedup_key,
                   NULL::bigint AS timeout_ms, NULL::uuid AS locked_by, NULL::timestamptz AS lease_until
            FROM {schema}.job_history""";

    private final Jdbc jdbc;

    private final boolean enabled;

    private final Sql recordOutput;

    private final Sql expire;

    JdbcHistoryRepository(Jdbc jdbc, Schema schema, boolean enabled) {
        this.jdbc = jdbc;
        this.enabled = enabled;
        this.recordOutput = schema.sql("UPDATE {schema}.job_history SET output = :output::jsonb WHERE id = :id");
        this.expire = schema.sql("""
                WITH expired AS (
                    DELETE FROM {schema}.job_history WHERE id = ANY(ARRAY(
                        SELECT id FROM {schema}.job_history
                        WHERE finished_at < now() - :retention_ms * interval '1 millisecond'
                        ORDER BY finished_at LIMIT :limit FOR UPDATE SKIP LOCKED))
                    RETURNING id
                )
                SELECT count(*) FROM expired
                """);
    }

    @Override
    public boolean enabled() {
        return enabled;
    }

    /**
     * The {@link Transition.Cascade#HISTORY} of a finishing statement: the CTE that copies its finished rows
     * into job_history, to follow the CTE {@code finished} (which returns the finished columns and
     * {@code state}), or an empty string when history is off. With {@code outputs}, the handlers' outputs come
     * as the parameter {@code outputs}, aligned with {@code ids}.
     */
    String archiveCte(String finished, boolean outputs) {
        if (!enabled) {
            return "";
        }
        return """
                , archived AS (
                    INSERT INTO {schema}.job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                                      dedup_key, created_at, run_at, attempted_at, last_error, state, output)
                    SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
                           f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, %s
                    FROM %s f%s
                )""".formatted(outputs ? "o.output::jsonb" : "NULL::jsonb", finished, outputs
                ? " LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = f.id" : "");
    }

    @Override
    public void recordOutput(long id, String outputJson) {
        if (enabled) {
            jdbc.update(recordOutput, (params) -> params.text("output", outputJson).int8("id", id));
        }
    }

    @Override
    public int expire(Duration retention, int limit) {
        return (int) jdbc.count(expire,
                (params) -> params.int8("retention_ms", retention.toMillis()).int4("limit", limit));
    }
}
