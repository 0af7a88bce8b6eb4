package io.pgqueue.internal.persistence;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC {@link DurableRepository}. Parking and waking change no job's state: a parked job is scheduled (the
 * snooze that ended its run put it there), and an event makes it due, which its queue's next claim promotes.
 */
final class JdbcDurableRepository implements DurableRepository {

    private final Jdbc jdbc;

    private final TransactionTemplate joining;

    private final TransactionTemplate own;

    private final TransactionTemplate outside;

    private final Sql progress;

    private final Sql record;

    private final Sql recorded;

    private final Sql endWait;

    private final Sql awaitEvent;

    private final Sql park;

    private final Sql emit;

    private final Sql child;

    private final Sql deliverRecent;

    private final Sql expire;

    private final Sql steps;

    private final Sql waitOf;

    private final Sql wake;

    JdbcDurableRepository(Jdbc jdbc, Schema schema) {
        this.jdbc = jdbc;
        DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(jdbc.dataSource());
        this.joining = new TransactionTemplate(transactionManager);
        this.own = new TransactionTemplate(transactionManager);
        own.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.outside = new TransactionTemplate(transactionManager);
        outside.setPropagationBehavior(TransactionDefinition.PROPAGATION_NOT_SUPPORTED);
        this.progress = schema.sql("durable.progress", """
                SELECT 'step' AS row_kind, s.name, s.occurrence, s.kind, NULL::text AS event_key, NULL::bigint AS child_id,
                       false AS woken, false AS over, false AS delivered, NULL::text AS payload,
                       NULL::bigint AS remaining_ms, s.result::text AS result, s.result_type
                FROM {schema}.job_step s WHERE s.job_id = :job
                UNION ALL
                SELECT 'wait', w.name, w.occurrence, w.kind, w.event_key, w.child_id, w.woken,
                       (w.until IS NOT NULL AND w.until <= now()) AS over, (e.key IS NOT NULL) AS delivered,
                       e.payload::text AS payload,
                       CASE WHEN w.until IS NOT NULL
                            THEN greatest(0, (extract(epoch FROM (w.until - now())) * 1000)::bigint) END AS remaining_ms,
                       NULL, NULL
                FROM {schema}.job_wait w
                LEFT JOIN {schema}.event e ON e.key = w.event_key AND e.expires_at > now()
                WHERE w.job_id = :job""");
        String insertStep = """
                INSERT INTO {schema}.job_step (job_id, name, occurrence, kind, result, result_type, started_at)
                VALUES (:job, :name, :occurrence, :kind, :result::jsonb, :result_type,
                        to_timestamp(:started_ms / 1000.0))
                ON CONFLICT (job_id, name, occurrence) DO NOTHING""";
        this.record = schema.sql("durable.record-step", insertStep + """

                RETURNING name, occurrence, kind, result::text AS result, result_type""");
        this.recorded = schema.sql("durable.recorded-step", """
                SELECT name, occurrence, kind, result::text AS result, result_type FROM {schema}.job_step
                WHERE job_id = :job AND name = :name AND occurrence = :occurrence""");
        this.endWait = schema.sql("durable.end-wait", Steps.step("recorded", insertStep)
            .then("ended", "DELETE FROM {schema}.job_wait WHERE job_id = :job")
            .select("SELECT 1"));
        this.awaitEvent = schema.sql("durable.await-event", Steps
            .step("emitted", "SELECT payload FROM {schema}.event WHERE key = :key AND expires_at > now()")
            .then("registered", """
                    INSERT INTO {schema}.job_wait (job_id, name, occurrence, kind, event_key, child_id, until)
                    SELECT :job, :name, :occurrence, :kind, :key, :child, :until WHERE NOT EXISTS (SELECT 1 FROM emitted)
                    ON CONFLICT (job_id) DO UPDATE
                        SET name = excluded.name, occurrence = excluded.occurrence, kind = excluded.kind,
                            event_key = excluded.event_key, child_id = excluded.child_id, until = excluded.until, since = now(),
                            woken = false""")
            .select("SELECT EXISTS (SELECT 1 FROM emitted) AS delivered, (SELECT payload::text FROM emitted) AS payload"));
        this.park = schema.sql("durable.park", """
                INSERT INTO {schema}.job_wait (job_id, name, occurrence, kind, child_id, until)
                VALUES (:job, :name, :occurrence, :kind, :child, :until)
                ON CONFLICT (job_id) DO UPDATE
                    SET name = excluded.name, occurrence = excluded.occurrence, kind = excluded.kind, event_key = NULL,
                        child_id = excluded.child_id, until = excluded.until, since = now(), woken = false
                RETURNING job_id""");
        this.emit = schema.sql("durable.emit", Steps.step("emitted", """
                INSERT INTO {schema}.event AS e (key, payload, expires_at)
                VALUES (:key, :payload::jsonb, now() + :retention_ms * interval '1 millisecond')
                ON CONFLICT (key) DO UPDATE
                    SET payload = excluded.payload, emitted_at = now(), expires_at = excluded.expires_at
                    WHERE e.expires_at <= now()
                RETURNING key""")
            .then(dueSteps("SELECT key FROM emitted", ""))
            .select("SELECT EXISTS (SELECT 1 FROM emitted) AS first, ARRAY(SELECT DISTINCT queue FROM due) AS due_woken"));
        this.child = schema.sql("durable.child", "SELECT state, last_error FROM {schema}.job WHERE id = :child");
        this.deliverRecent = schema.sql("durable.deliver-recent", Steps
            .step("recent", "SELECT key FROM {schema}.event WHERE emitted_at > now() - :window_ms * interval '1 millisecond'")
            .then(dueSteps("SELECT key FROM recent", " AND j.run_at > now()"))
            .select("SELECT count(*) AS made_due, ARRAY(SELECT DISTINCT queue FROM due) AS due_woken FROM due"));
        this.expire = schema.sql("durable.expire", Steps
            .step("expired", """
                    DELETE FROM {schema}.event WHERE key = ANY(ARRAY(
                        SELECT key FROM {schema}.event WHERE expires_at <= now() ORDER BY expires_at LIMIT :limit))
                    RETURNING key""")
            .then("orphan_steps", """
                    DELETE FROM {schema}.job_step s WHERE s.job_id = ANY(ARRAY(
                        SELECT DISTINCT o.job_id FROM {schema}.job_step o
                        WHERE NOT EXISTS (SELECT 1 FROM {schema}.job j WHERE j.id = o.job_id) LIMIT :limit))
                    RETURNING s.job_id""")
            .then("orphan_waits", """
                    DELETE FROM {schema}.job_wait w WHERE w.job_id = ANY(ARRAY(
                        SELECT o.job_id FROM {schema}.job_wait o
                        WHERE NOT EXISTS (SELECT 1 FROM {schema}.job j WHERE j.id = o.job_id) LIMIT :limit))
                    RETURNING w.job_id""")
            .select("""
                    SELECT greatest((SELECT count(*) FROM expired), (SELECT count(DISTINCT job_id) FROM orphan_steps),
                                    (SELECT count(*) FROM orphan_waits))"""));
        this.steps = schema.sql("durable.steps", """
                SELECT name, occurrence, kind, result::text AS result, started_at, finished_at
                FROM {schema}.job_step WHERE job_id = :job ORDER BY finished_at, name, occurrence""");
        this.waitOf = schema.sql("durable.wait", """
                SELECT kind, event_key, child_id, until, since FROM {schema}.job_wait WHERE job_id = :job""");
        this.wake = schema.sql("durable.wake", Steps.step("woken", """
                UPDATE {schema}.job_wait SET woken = true, until = now() WHERE job_id = :job RETURNING job_id""")
            .then("due", """
                    UPDATE {schema}.job j SET run_at = now() FROM woken w WHERE j.id = w.job_id AND j.state = 'scheduled'
                    RETURNING j.queue""")
            .select("SELECT (SELECT count(*) FROM woken) AS parked, ARRAY(SELECT queue FROM due) AS due_woken"));
    }

    /**
     * Makes the jobs waiting for the events of {@code keys} due now: they stay scheduled, and their queue's next
     * claim promotes them (no state changes here, so no counter moves).
     *
     * @param notYetDue {@code " AND j.run_at > now()"} to leave jobs that are due already, else empty
     */
    private static Steps dueSteps(String keys, String notYetDue) {
        return Steps.step("due", """
                UPDATE {schema}.job j SET run_at = now()
                FROM {schema}.job_wait w
                WHERE w.event_key IN (%s) AND j.id = w.job_id AND j.state = 'scheduled'%s
                RETURNING j.queue""".formatted(keys, notYetDue));
    }

    @Override
    public <T> T inTransaction(Supplier<T> work) {
        return java.util.Objects.requireNonNull(joining.execute((status) -> work.get()));
    }

    @Override
    public <T> T inOwnTransaction(Supplier<T> work) {
        return java.util.Objects.requireNonNull(own.execute((status) -> work.get()));
    }

    @Override
    public <T> T outsideTransaction(Supplier<T> work) {
        return java.util.Objects.requireNonNull(outside.execute((status) -> work.get()));
    }

    @Override
    public Progress progress(long jobId) {
        List<StoredStep> stored = new ArrayList<>();
        StoredWait[] wait = new StoredWait[1];
        jdbc.query(progress, (params) -> params.int8("job", jobId), (row) -> {
            if ("step".equals(row.getString("row_kind"))) {
                stored.add(step(row));
            }
            else {
                wait[0] = wait(row);
            }
            return Boolean.TRUE;
        });
        return new Progress(List.copyOf(stored), wait[0]);
    }

    @Override
    public StoredStep record(NewStep step, boolean alone) {
        Jdbc.Binder binder = (params) -> bind(params, step);
        List<StoredStep> inserted = alone ? jdbc.queryAlone(record, binder, JdbcDurableRepository::step)
                : jdbc.query(record, binder, JdbcDurableRepository::step);
        if (!inserted.isEmpty()) {
            // as written, not as jsonb prints it back: the caller tells its own record from another run's by it
            return new StoredStep(step.name(), step.occurrence(), step.kind(), step.resultJson(), step.resultType());
        }
        // another run of the job recorded the step first: its result is the step's
        List<StoredStep> first = jdbc.query(recorded, (params) -> params.int8("job", step.jobId())
            .text("name", step.name()).int4("occurrence", step.occurrence()), JdbcDurableRepository::step);
        return first.isEmpty() ? new StoredStep(step.name(), step.occurrence(), step.kind(), step.resultJson(),
                step.resultType()) : first.get(0);
    }

    @Override
    public void endWait(NewStep step) {
        jdbc.queryAlone(endWait, (params) -> bind(params, step), (row) -> Boolean.TRUE);
    }

    private static void bind(Params params, NewStep step) throws SQLException {
        params.int8("job", step.jobId()).text("name", step.name()).int4("occurrence", step.occurrence())
            .text("kind", step.kind()).text("result", step.resultJson()).text("result_type", step.resultType())
            // as epoch milliseconds: the driver builds a calendar for every timestamp it binds
            .int8("started_ms", step.startedAt().toEpochMilli());
    }

    @Override
    public Delivery awaitEvent(long jobId, String name, int occurrence, String kind, String key, @Nullable Long childId,
            @Nullable Instant until) {
        return jdbc.queryAlone(awaitEvent, (params) -> params.int8("job", jobId).text("name", name)
            .int4("occurrence", occurrence).text("kind", kind).text("key", key).int8("child", childId)
            .timestamp("until", until),
                (row) -> new Delivery(row.getBoolean("delivered"), row.getString("payload"))).get(0);
    }

    @Override
    public void park(long jobId, String name, int occurrence, String kind, @Nullable Long childId, @Nullable Instant until) {
        jdbc.queryAlone(park, (params) -> params.int8("job", jobId).text("name", name).int4("occurrence", occurrence)
            .text("kind", kind).int8("child", childId).timestamp("until", until), (row) -> Boolean.TRUE);
    }

    @Override
    public boolean emit(String key, @Nullable String payloadJson, Duration retention) {
        return jdbc.query(emit, (params) -> params.text("key", key).text("payload", payloadJson)
            .int8("retention_ms", retention.toMillis()), (row) -> row.getBoolean("first")).get(0);
    }

    @Override
    public @Nullable ChildState child(long childId) {
        List<ChildState> found = jdbc.query(child, (params) -> params.int8("child", childId),
                (row) -> new ChildState(row.getString("state"), row.getString("last_error")));
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public int deliverRecent(Duration window) {
        return (int) jdbc.count(deliverRecent, (params) -> params.int8("window_ms", window.toMillis()));
    }

    @Override
    public int expire(int limit) {
        return (int) jdbc.count(expire, (params) -> params.int4("limit", limit));
    }

    @Override
    public List<StepRecord> stepsOf(long jobId) {
        return jdbc.query(steps, (params) -> params.int8("job", jobId), (row) -> new StepRecord(row.getString("name"),
                row.getInt("occurrence"), row.getString("kind"), row.getString("result"),
                row.getTimestamp("started_at").toInstant(), row.getTimestamp("finished_at").toInstant()));
    }

    @Override
    public @Nullable WaitRecord waitOf(long jobId) {
        List<WaitRecord> found = jdbc.query(waitOf, (params) -> params.int8("job", jobId), (row) -> {
            long childId = row.getLong("child_id");
            Long child = row.wasNull() ? null : childId;
            java.sql.Timestamp until = row.getTimestamp("until");
            return new WaitRecord(row.getString("kind"), row.getString("event_key"), child,
                    (until != null) ? until.toInstant() : null, row.getTimestamp("since").toInstant());
        });
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public boolean wake(long jobId) {
        return jdbc.count(wake, (params) -> params.int8("job", jobId)) > 0;
    }

    private static StoredStep step(ResultSet row) throws SQLException {
        return new StoredStep(row.getString("name"), row.getInt("occurrence"), row.getString("kind"),
                row.getString("result"), row.getString("result_type"));
    }

    private static StoredWait wait(ResultSet row) throws SQLException {
        long remaining = row.getLong("remaining_ms");
        Duration left = row.wasNull() ? null : Duration.ofMillis(remaining);
        long childId = row.getLong("child_id");
        Long child = row.wasNull() ? null : childId;
        return new StoredWait(row.getString("name"), row.getInt("occurrence"), row.getString("kind"),
                row.getString("event_key"), child, row.getBoolean("woken"), row.getBoolean("over"),
                row.getBoolean("delivered"), row.getString("payload"), left);
    }
}
