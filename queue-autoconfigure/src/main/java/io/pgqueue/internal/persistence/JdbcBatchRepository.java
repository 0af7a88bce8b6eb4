package io.pgqueue.internal.persistence;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.pgqueue.model.BatchCallbackInfo;
import io.pgqueue.model.BatchCounts;
import io.pgqueue.model.BatchEventType;
import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.JobState;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The batch tables' one place. Counts per batch are an aggregate like the queue counters (deltas appended by
 * {@link BatchCascade} in the members' statements, folded by {@link #squeeze()}); whether a batch is done is
 * decided by its shards, in the members' statements, and stored on its row.
 */
final class JdbcBatchRepository implements BatchRepository {

    /** A batch row with its counts, properties and callbacks, the batch aliased {@code b}. */
    private static final String BATCH_COLUMNS = """
            b.id, b.name, b.state, b.created_at, b.sealed_at, b.finished_at,
            ARRAY(SELECT key FROM jsonb_each_text(b.properties) ORDER BY key) AS property_keys,
            ARRAY(SELECT value FROM jsonb_each_text(b.properties) ORDER BY key) AS property_values,
            ARRAY(SELECT event FROM {schema}.batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS events,
            ARRAY(SELECT queue FROM {schema}.batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS queues,
            ARRAY(SELECT state FROM {schema}.batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS states,
            ARRAY(SELECT job_id FROM {schema}.batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS job_ids,
            ARRAY(SELECT fired_at FROM {schema}.batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS fired_at,
            c.*""";

    private final Jdbc jdbc;

    private final Schema schema;

    private final TransactionTemplate transactions;

    private final Counters batchCounts;

    private final Sql open;

    private final Sql lockForAdding;

    private final Sql seal;

    private final Sql markCancelled;

    private final Sql sealCancelled;

    private final Sql batch;

    private final Sql members;

    private final Sql countsByState;

    private final Sql squeeze;

    private final Sql expire;

    private final Map<String, Sql> pages = new ConcurrentHashMap<>();

    JdbcBatchRepository(Jdbc jdbc, Schema schema, Counters counters) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(jdbc.dataSource()));
        this.batchCounts = new Counters(true, Counters.Aggregate.BATCH);
        BatchCascade cascade = new BatchCascade(counters);
        this.open = schema.sql("batch.open", """
                WITH created AS (
                    INSERT INTO {schema}.batch (name, properties, complete_on_cancel)
                    VALUES (:name, jsonb_object(:keys::text[], :values::text[]), :complete_on_cancel)
                    RETURNING id
                ), slots AS (
                    INSERT INTO {schema}.batch_slot (batch_id, slot)
                    SELECT c.id, s FROM created c, generate_series(0, %d) AS s
                ), callbacks AS (
                    INSERT INTO {schema}.batch_callback (batch_id, event, queue, priority, delay_ms, max_attempts,
                                                         group_key, timeout_ms, headers)
                    SELECT c.id, k.event, k.queue, k.priority, k.delay_ms, k.max_attempts, k.group_key, k.timeout_ms,
                           k.headers::jsonb
                    FROM created c,
                         unnest(:events::text[], :queues::text[], :priorities::smallint[], :delays::bigint[],
                                :max_attempts::int[], :group_keys::text[], :timeouts::bigint[], :headers::text[])
                         AS k(event, queue, priority, delay_ms, max_attempts, group_key, timeout_ms, headers)
                )
                SELECT id FROM created""".formatted(BatchCascade.SLOTS - 1));
        this.lockForAdding = schema.sql("batch.lock-for-adding", "SELECT state FROM {schema}.batch WHERE id = :id FOR KEY SHARE");
        this.seal = schema.sql("batch.seal", sealStatement(cascade, "open"));
        this.markCancelled = schema.sql("batch.mark-cancelled", """
                WITH target AS (
                    SELECT id, state, complete_on_cancel FROM {schema}.batch
                    WHERE id = :id AND state IN ('open', 'running') FOR UPDATE
                ), skipped AS (
                    UPDATE {schema}.batch_callback k SET state = 'skipped'
                    FROM target t
                    WHERE k.batch_id = t.id AND k.state = 'pending' AND (k.event <> 'complete' OR NOT t.complete_on_cancel)
                ), marked AS (
                    UPDATE {schema}.batch SET state = 'cancelled' WHERE id = ANY(ARRAY(SELECT id FROM target))
                    RETURNING id
                )
                SELECT t.state FROM target t JOIN marked m ON m.id = t.id""");
        this.sealCancelled = schema.sql("batch.seal-cancelled", sealStatement(cascade, "cancelled"));
        this.batch = schema.sql("batch.batch", """
                SELECT %s
                FROM {schema}.batch b
                LEFT JOIN LATERAL (%s) AS c ON true
                WHERE b.id = :id""".formatted(BATCH_COLUMNS, batchCounts.countsQuery("batch_id = b.id")));
        this.members = schema.sql("batch.members", """
                SELECT id, queue, state, attempts, split_part(left(last_error, 1000), chr(10), 1) AS error
                FROM {schema}.job
                WHERE batch_id = :batch_id AND id > :after
                ORDER BY batch_id, id LIMIT :limit""");
        this.countsByState = schema.sql("batch.counts-by-state", "SELECT state, count(*) FROM {schema}.batch GROUP BY state");
        this.squeeze = schema.sql("batch.squeeze", batchCounts.squeezeStatement());
        this.expire = schema.sql("batch.expire", """
                WITH gone AS (
                    DELETE FROM {schema}.batch WHERE id = ANY(ARRAY(
                        SELECT b.id FROM {schema}.batch b
                        WHERE b.finished_at < now() - :retention_ms * interval '1 millisecond'
                          AND NOT EXISTS (SELECT 1 FROM {schema}.job j WHERE j.batch_id = b.id)
                          AND NOT EXISTS (SELECT 1 FROM {schema}.batch_callback k JOIN {schema}.job j ON j.id = k.job_id
                                          WHERE k.batch_id = b.id)
                        ORDER BY b.finished_at LIMIT :limit FOR UPDATE SKIP LOCKED))
                    RETURNING id
                ), slots AS (
                    DELETE FROM {schema}.batch_slot s USING gone g WHERE s.batch_id = g.id
                ), callbacks AS (
                    DELETE FROM {schema}.batch_callback k USING gone g WHERE k.batch_id = g.id
                ), counts AS (
                    DELETE FROM {schema}.batch_counter c USING gone g WHERE c.batch_id = g.id
                )
                SELECT count(*) FROM gone""");
    }

    /** The seal of the batch {@code :id} if it is in {@code state}; returns its state afterwards (null: none). */
    private static String sealStatement(BatchCascade cascade, String state) {
        return Steps.step("b_target", "SELECT id FROM {schema}.batch WHERE id = :id AND state = '%s' FOR UPDATE"
                .formatted(state))
            .then(cascade.sealed())
            .select("""
                SELECT coalesce((SELECT state FROM b_batches), (SELECT state FROM {schema}.batch WHERE id = :id)) AS state,
                       ARRAY(SELECT queue FROM b_woken) AS b_woken""");
    }

    @Override
    public long open(String name, Map<String, String> properties, boolean completeOnCancel,
            List<NewCallback> callbacks) {
        return jdbc.count(open, (params) -> params.text("name", name)
            .array("keys", "text", properties.keySet().toArray())
            .array("values", "text", properties.values().toArray())
            .bool("complete_on_cancel", completeOnCancel)
            .array("events", "text", Params.column(callbacks, NewCallback::event))
            .array("queues", "text", Params.column(callbacks, NewCallback::queue))
            .array("priorities", "int2", Params.column(callbacks, NewCallback::priority))
            .array("delays", "int8", Params.column(callbacks, NewCallback::delayMillis))
            .array("max_attempts", "int4", Params.column(callbacks, NewCallback::maxAttempts))
            .array("group_keys", "text", Params.column(callbacks, NewCallback::groupKey))
            .array("timeouts", "int8", Params.column(callbacks, NewCallback::timeoutMillis))
            .array("headers", "text", Params.column(callbacks, NewCallback::headersJson)));
    }

    @Override
    public @Nullable String lockForAdding(long batchId) {
        List<String> found = jdbc.query(lockForAdding, (params) -> params.int8("id", batchId), (row) -> row.getString(1));
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public @Nullable String seal(long batchId) {
        List<String> found = jdbc.query(seal, (params) -> params.int8("id", batchId),
                (row) -> row.getString("state"));
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public @Nullable String markCancelled(long batchId) {
        List<String> marked = jdbc.query(markCancelled, (params) -> params.int8("id", batchId), (row) -> row.getString(1));
        return marked.isEmpty() ? null : marked.get(0);
    }

    @Override
    public void sealCancelled(long batchId) {
        jdbc.query(sealCancelled, (params) -> params.int8("id", batchId), (row) -> row.getString("state"));
    }

    @Override
    public <T> T inTransaction(Supplier<T> work) {
        return Objects.requireNonNull(transactions.execute((status) -> work.get()));
    }

    @Override
    public @Nullable BatchInfo batch(long id) {
        List<BatchInfo> found = jdbc.query(batch, (params) -> params.int8("id", id), JdbcBatchRepository::info);
        return found.isEmpty() ? null : found.get(0);
    }

    /** The catalogue name of a page statement by the filters it has. */
    static String pageName(String page, @Nullable Object name, @Nullable Object state) {
        return page + ((name != null) ? "+name" : "") + ((state != null) ? "+state" : "");
    }

    @Override
    public List<BatchInfo> batches(BatchQuery query) {
        String key = ((query.name() != null) ? "n" : "") + ((query.state() != null) ? "s" : "");
        Sql page = pages.computeIfAbsent(key, (k) -> schema.sql(pageName("batch.page", query.name(), query.state()), """
                SELECT %s
                FROM (SELECT * FROM {schema}.batch
                      WHERE id < :before %s%s
                      ORDER BY id DESC LIMIT :limit) AS b
                LEFT JOIN LATERAL (%s) AS c ON true
                ORDER BY b.id DESC""".formatted(BATCH_COLUMNS, k.contains("n") ? "AND name = :name " : "",
                k.contains("s") ? "AND state = :state " : "", batchCounts.countsQuery("batch_id = b.id"))));
        return jdbc.query(page, (params) -> {
            params.int8("before", (query.beforeId() != null) ? query.beforeId() : Long.MAX_VALUE)
                .int4("limit", query.limit());
            if (query.name() != null) {
                params.text("name", query.name());
            }
            if (query.state() != null) {
                params.text("state", query.state().value());
            }
        }, JdbcBatchRepository::info);
    }

    private static BatchInfo info(ResultSet row) throws SQLException {
        BatchCounts counts = new BatchCounts(row.getLong("active"), row.getLong("dead"), row.getLong("completed"),
                row.getLong("cancelled"));
        Map<String, String> properties = new LinkedHashMap<>();
        Object[] keys = array(row.getArray("property_keys"));
        Object[] values = array(row.getArray("property_values"));
        for (int i = 0; i < keys.length; i++) {
            properties.put((String) keys[i], (String) values[i]);
        }
        Object[] events = array(row.getArray("events"));
        Object[] queues = array(row.getArray("queues"));
        Object[] states = array(row.getArray("states"));
        Object[] jobIds = array(row.getArray("job_ids"));
        Object[] firedAt = array(row.getArray("fired_at"));
        List<BatchCallbackInfo> callbacks = new ArrayList<>();
        for (int i = 0; i < events.length; i++) {
            callbacks.add(new BatchCallbackInfo(BatchEventType.of((String) events[i]), (String) queues[i],
                    (String) states[i], (Long) jobIds[i], JobLookups.instant((Timestamp) firedAt[i])));
        }
        return new BatchInfo(row.getLong("id"), row.getString("name"), BatchState.of(row.getString("state")), counts,
                properties, callbacks, Objects.requireNonNull(JobLookups.instant(row.getTimestamp("created_at"))),
                JobLookups.instant(row.getTimestamp("sealed_at")), JobLookups.instant(row.getTimestamp("finished_at")));
    }

    private static Object[] array(@Nullable Array array) throws SQLException {
        return (array != null) ? (Object[]) array.getArray() : new Object[0];
    }

    @Override
    public List<BatchMemberInfo> members(long batchId, long afterJobId, int limit) {
        return jdbc.query(members, (params) -> params.int8("batch_id", batchId).int8("after", afterJobId)
            .int4("limit", limit), (row) -> new BatchMemberInfo(row.getLong("id"), row.getString("queue"),
                    JobState.of(row.getString("state")), row.getInt("attempts"), row.getString("error")));
    }

    @Override
    public Map<String, Long> countsByState() {
        Map<String, Long> counts = new LinkedHashMap<>();
        jdbc.query(countsByState, Jdbc.Binder.NONE, (row) -> counts.put(row.getString(1), row.getLong(2)));
        return counts;
    }

    @Override
    public long squeeze() {
        return jdbc.count(squeeze, (params) -> params.text("lock", "pgqueue.squeeze-batches." + schema.name()));
    }

    @Override
    public int expire(Duration retention, int limit) {
        return (int) jdbc.count(expire, (params) -> params.int8("retention_ms", retention.toMillis()).int4("limit", limit));
    }
}
