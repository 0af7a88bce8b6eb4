package io.pgqueue.internal.persistence;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The JDBC {@link ScheduleRepository}. A tick's job is inserted by the job repository's insert, so a
 * recurring job is counted and notified exactly like a sent one.
 */
final class JdbcScheduleRepository implements ScheduleRepository {

    private static final String COLUMNS = """
            name, queue, cron, fixed_rate_ms, zone, payload::text AS payload, payload_type, missed, next_run_at,
            last_run_at, paused, overridden""";

    /**
     * Advances the schedule by compare-and-set on its next and last run (a run-time trigger changes only the
     * last); the winner's row feeds the job insert.
     */
    private static final Steps FIRE = Steps.step("advanced", """
            UPDATE {schema}.schedule SET next_run_at = :next, last_run_at = :tick, updated_at = now()
            WHERE name = :name AND next_run_at = :expected
              AND last_run_at IS NOT DISTINCT FROM :expected_last::timestamptz
            RETURNING name, queue, payload, payload_type""")
        .then("input", """
            SELECT queue, coalesce(payload, '{}'::jsonb) AS payload, payload_type,
                   jsonb_build_object('schedule', name, 'tick', :tick_label::text) AS headers,
                   0::smallint AS priority, now() AS due, NULL::int AS max_attempts, :dedup_key::text AS dedup_key,
                   NULL::text AS group_key, NULL::bigint AS timeout_ms, :dedup_for_ms::bigint AS dedup_for_ms
            FROM advanced WHERE :enqueue::boolean""");

    private final Jdbc jdbc;

    private final Schema schema;

    private final Sql declare;

    private final Sql all;

    private final Sql due;

    private final Sql now;

    private final Sql[] fire;

    private final Sql delete;

    private final Sql find;

    private final Sql pause;

    private final Sql redefine;

    JdbcScheduleRepository(Jdbc jdbc, Schema schema, InsertStatements inserts) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.declare = schema.sql("schedule.declare", """
                INSERT INTO {schema}.schedule AS s (name, queue, cron, fixed_rate_ms, zone, payload, payload_type, missed,
                                                    next_run_at)
                VALUES (:name, :queue, :cron, :fixed_rate_ms, :zone, :payload::jsonb, :payload_type, :missed, :next_run_at)
                ON CONFLICT (name) DO UPDATE SET
                    queue = excluded.queue,
                    cron = CASE WHEN s.overridden THEN s.cron ELSE excluded.cron END,
                    fixed_rate_ms = CASE WHEN s.overridden THEN s.fixed_rate_ms ELSE excluded.fixed_rate_ms END,
                    zone = CASE WHEN s.overridden THEN s.zone ELSE excluded.zone END,
                    payload = excluded.payload, payload_type = excluded.payload_type,
                    missed = excluded.missed,
                    next_run_at = CASE
                        WHEN s.overridden AND (s.queue, s.payload) IS NOT DISTINCT FROM (excluded.queue, excluded.payload)
                        THEN s.next_run_at
                        WHEN (s.queue, s.cron, s.fixed_rate_ms, s.zone, s.payload)
                             IS NOT DISTINCT FROM (excluded.queue, excluded.cron, excluded.fixed_rate_ms, excluded.zone,
                                                   excluded.payload)
                        THEN s.next_run_at ELSE excluded.next_run_at END,
                    updated_at = now()
                """);
        this.all = schema.sql("schedule.all", "SELECT " + COLUMNS + " FROM {schema}.schedule ORDER BY name");
        this.due = schema.sql("schedule.due", "SELECT " + COLUMNS
                + " FROM {schema}.schedule WHERE next_run_at <= now() AND NOT paused ORDER BY next_run_at");
        this.find = schema.sql("schedule.find", "SELECT " + COLUMNS + " FROM {schema}.schedule WHERE name = :name");
        this.pause = schema.sql("schedule.pause", """
                UPDATE {schema}.schedule SET paused = :paused, next_run_at = coalesce(:next::timestamptz, next_run_at),
                                             updated_at = now()
                WHERE name = :name""");
        this.redefine = schema.sql("schedule.redefine", """
                UPDATE {schema}.schedule SET cron = :cron, fixed_rate_ms = :fixed_rate_ms, next_run_at = :next,
                                             overridden = true, updated_at = now()
                WHERE name = :name""");
        this.now = schema.sql("schedule.now", "SELECT now()");
        this.fire = new Sql[] { fireStatement(inserts, false, false), fireStatement(inserts, true, false),
                fireStatement(inserts, false, true), fireStatement(inserts, true, true) };
        this.delete = schema.sql("schedule.delete", "DELETE FROM {schema}.schedule WHERE name = :name");
    }

    /**
     * A tick (or, {@code triggered}, a run-time trigger, whose job holds the trigger's dedup key for a window);
     * returns how many jobs it enqueued, or, for a tick that skips its job, whether it advanced.
     */
    private Sql fireStatement(InsertStatements inserts, boolean notify, boolean triggered) {
        return schema.sql("schedule.fire" + (notify ? "+notify" : "") + (triggered ? "+triggered" : ""),
                FIRE.then(inserts.inserted(Counters.Rows.ONE, notify, triggered)).select(
                        "SELECT CASE WHEN :enqueue::boolean THEN (SELECT count(*) FROM inserted) ELSE (SELECT count(*) "
                        + "FROM advanced) END" + (notify ? " + 0 * (SELECT count(*) FROM notified)" : "") + " AS fired"));
    }

    @Override
    public void declare(ScheduleRecord schedule) {
        jdbc.update(declare, (params) -> params.text("name", schedule.name())
            .text("queue", schedule.queue())
            .text("cron", schedule.cron())
            .int8("fixed_rate_ms", schedule.fixedRateMillis())
            .text("zone", schedule.zone())
            .text("payload", schedule.payloadJson())
            .text("payload_type", schedule.payloadType())
            .text("missed", schedule.missed())
            .timestamp("next_run_at", schedule.nextRunAt()));
    }

    @Override
    public List<ScheduleRecord> all() {
        return jdbc.query(all, Jdbc.Binder.NONE, JdbcScheduleRepository::record);
    }

    @Override
    public List<ScheduleRecord> due() {
        return jdbc.query(due, Jdbc.Binder.NONE, JdbcScheduleRepository::record);
    }

    @Override
    public Instant now() {
        return jdbc.query(now, Jdbc.Binder.NONE, (row) -> row.getTimestamp(1).toInstant()).get(0);
    }

    @Override
    public boolean fire(ScheduleRecord schedule, Instant tick, Instant next, boolean enqueue, boolean notify) {
        return fire(fire[notify ? 1 : 0], schedule, tick, next, enqueue, null, null);
    }

    @Override
    public boolean trigger(ScheduleRecord schedule, Instant now, Duration window, boolean notify) {
        return fire(fire[notify ? 3 : 2], schedule, now, schedule.nextRunAt(), true,
                "pgqueue.trigger." + schedule.name(), window.toMillis());
    }

    private boolean fire(Sql sql, ScheduleRecord schedule, Instant tick, Instant next, boolean enqueue,
            @Nullable String dedupKey, @Nullable Long dedupForMillis) {
        return jdbc.count(sql, (params) -> {
            params.timestamp("next", next)
                .timestamp("tick", tick)
                .text("name", schedule.name())
                .timestamp("expected", schedule.nextRunAt())
                .timestamp("expected_last", schedule.lastRunAt())
                .text("tick_label", tick.toString())
                .bool("enqueue", enqueue)
                .text("dedup_key", dedupKey)
                .int8("dedup_for_ms", dedupForMillis);
            if (sql == fire[1] || sql == fire[3]) {
                params.text("channel", schema.notifyChannel());
            }
        }) > 0;
    }

    @Override
    public @Nullable ScheduleRecord find(String name) {
        List<ScheduleRecord> found = jdbc.query(find, (params) -> params.text("name", name), JdbcScheduleRepository::record);
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public boolean setPaused(String name, boolean paused, @Nullable Instant nextRunAt) {
        return jdbc.update(pause, (params) -> params.bool("paused", paused).timestamp("next", nextRunAt)
            .text("name", name)) > 0;
    }

    @Override
    public boolean redefine(String name, @Nullable String cron, @Nullable Long fixedRateMillis, Instant nextRunAt) {
        return jdbc.update(redefine, (params) -> params.text("cron", cron)
            .int8("fixed_rate_ms", fixedRateMillis)
            .timestamp("next", nextRunAt)
            .text("name", name)) > 0;
    }

    @Override
    public boolean delete(String name) {
        return jdbc.update(delete, (params) -> params.text("name", name)) > 0;
    }

    private static ScheduleRecord record(ResultSet row) throws SQLException {
        long rate = row.getLong("fixed_rate_ms");
        Long fixedRate = row.wasNull() ? null : rate;
        Timestamp last = row.getTimestamp("last_run_at");
        return new ScheduleRecord(row.getString("name"), row.getString("queue"), row.getString("cron"), fixedRate,
                row.getString("zone"), row.getString("payload"), row.getString("payload_type"), row.getString("missed"),
                row.getTimestamp("next_run_at").toInstant(), (last != null) ? last.toInstant() : null,
                row.getBoolean("paused"), row.getBoolean("overridden"));
    }
}
