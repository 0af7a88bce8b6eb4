package io.pgqueue.internal.persistence;

import java.sql.Timestamp;
import java.util.List;

import io.pgqueue.model.FairnessKeyCounts;
import io.pgqueue.model.FairnessKeyInfo;
import org.jspecify.annotations.Nullable;

/**
 * The JDBC {@link FairnessRepository}: the statements of the {@code fair_key} table that the claims and the
 * cascades do not own ({@link FairnessCascade} writes those).
 */
final class JdbcFairnessRepository implements FairnessRepository {

    private final Jdbc jdbc;

    private final Sql setWeight;

    private final Sql setPaused;

    private final Sql keys;

    private final Sql keyCounts;

    private final Sql keyOfHandle;

    /**
     * A key's handle ({@link FairnessKeyInfo#handle()}): a hash salted with the cluster's system identifier, which
     * no one who sees only the endpoint or the dashboard knows, so that a handle of a small key space (customer
     * numbers) cannot be reversed by hashing every candidate.
     */
    private static final String HANDLE = "'~' || left(md5((SELECT s.system_identifier::text FROM pg_control_system() AS s)"
            + " || chr(31) || current_database() || chr(31) || k.queue || chr(31) || k.key), 16)";

    JdbcFairnessRepository(Jdbc jdbc, Schema schema) {
        this.jdbc = jdbc;
        this.setWeight = schema.sql("fairness.set-weight", upsert("weight = excluded.weight", "weight", ":weight::float8"));
        // a key let go starts again at the queue's lowest pass: its pause earns it no credit
        this.setPaused = schema.sql("fairness.set-paused", upsert("""
                paused = excluded.paused,
                    active = k.active OR NOT excluded.paused,
                    pass = CASE WHEN excluded.paused THEN k.pass ELSE greatest(k.pass, coalesce(
                        (SELECT min(a.pass) FROM {schema}.fair_key a WHERE a.queue = k.queue AND a.active AND NOT a.drained AND NOT a.paused),
                        k.pass)) END""", "paused", ":paused::boolean"));
        this.keys = schema.sql("fairness.keys", """
                SELECT k.key, k.weight, k.paused, k.active, %s AS pass, %s AS handle,
                       (SELECT count(*) FROM (SELECT 1 FROM {schema}.job j
                                              WHERE j.queue = k.queue AND j.fairness_key = k.key AND j.state = 'ready'
                                              ORDER BY j.priority DESC, j.run_at, j.id LIMIT :ready_limit) AS r) AS ready,
                       (SELECT count(*) FROM {schema}.job j
                        WHERE j.queue = k.queue AND j.state = 'running' AND j.fairness_key = k.key) AS running,
                       (SELECT j.run_at FROM {schema}.job j
                        WHERE j.queue = k.queue AND j.fairness_key = k.key AND j.state = 'ready'
                        ORDER BY j.priority DESC, j.run_at, j.id LIMIT 1) AS next_ready_since
                FROM {schema}.fair_key k
                WHERE k.queue = :queue
                ORDER BY k.active DESC, k.key LIMIT :limit""".formatted(FairnessCascade.PASS, HANDLE));
        this.keyOfHandle = schema.sql("fairness.key-of-handle", """
                SELECT k.key FROM {schema}.fair_key k WHERE k.queue = :queue AND %s = :handle""".formatted(HANDLE));
        this.keyCounts = schema.sql("fairness.key-counts", """
                SELECT queue, count(*) FILTER (WHERE active AND NOT paused), count(*) FILTER (WHERE paused),
                       count(*) FILTER (WHERE NOT active AND NOT paused)
                FROM {schema}.fair_key GROUP BY queue ORDER BY queue""");
    }

    /** Inserts the key's row with one column set, or sets that column of the existing row. */
    private static String upsert(String update, String column, String value) {
        return """
                INSERT INTO {schema}.fair_key AS k (queue, key, pass, active, %s)
                VALUES (:queue, :key, coalesce((SELECT min(a.pass) FROM {schema}.fair_key a
                                                WHERE a.queue = :queue AND a.active AND NOT a.drained AND NOT a.paused), 0), false, %s)
                ON CONFLICT (queue, key) DO UPDATE SET %s, updated_at = now()""".formatted(column, value, update);
    }

    @Override
    public void setWeight(String queue, String key, @Nullable Double weight) {
        jdbc.update(setWeight, (params) -> params.text("queue", queue).text("key", key)
            .text("weight", (weight != null) ? Double.toString(weight) : null));
    }

    @Override
    public void setPaused(String queue, String key, boolean paused) {
        jdbc.update(setPaused, (params) -> params.text("queue", queue).text("key", key).bool("paused", paused));
    }

    @Override
    public List<FairnessKeyInfo> keys(String queue, int limit) {
        return jdbc.query(keys, (params) -> params.text("queue", queue).int4("limit", limit)
            .int8("ready_limit", FairnessKeyInfo.READY_COUNT_LIMIT), (row) -> {
                Timestamp since = row.getTimestamp("next_ready_since");
                return new FairnessKeyInfo(queue, row.getString("key"), row.getObject("weight", Double.class),
                        row.getBoolean("paused"), row.getBoolean("active"), row.getLong("ready"), row.getLong("running"),
                        (since != null) ? since.toInstant() : null, row.getDouble("pass"), row.getString("handle"));
            });
    }

    @Override
    public @Nullable String keyOfHandle(String queue, String handle) {
        List<String> keys = jdbc.query(keyOfHandle, (params) -> params.text("queue", queue).text("handle", handle),
                (row) -> row.getString(1));
        return keys.isEmpty() ? null : keys.get(0);
    }

    @Override
    public List<FairnessKeyCounts> keyCounts() {
        return jdbc.query(keyCounts, Jdbc.Binder.NONE,
                (row) -> new FairnessKeyCounts(row.getString(1), row.getLong(2), row.getLong(3), row.getLong(4)));
    }
}
