package io.pgqueue.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The SQL of recurring jobs: declaring them, finding due ones, and firing a tick, which advances the
 * schedule with a compare-and-set on its next run and enqueues the job in the same statement, so that one
 * node wins each tick however many try.
 */
public class ScheduleStore {

    /** Declares a schedule; an unchanged definition keeps its next run, a changed one starts afresh. */
    private static final String DECLARE = """
            INSERT INTO {schema}.schedule AS s (name, queue, cron, fixed_rate_ms, zone, payload, payload_type, missed,
                                                next_run_at)
            VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET
                queue = excluded.queue, cron = excluded.cron, fixed_rate_ms = excluded.fixed_rate_ms,
                zone = excluded.zone, payload = excluded.payload, payload_type = excluded.payload_type,
                missed = excluded.missed,
                next_run_at = CASE
                    WHEN (s.queue, s.cron, s.fixed_rate_ms, s.zone, s.payload)
                         IS NOT DISTINCT FROM (excluded.queue, excluded.cron, excluded.fixed_rate_ms, excluded.zone,
                                               excluded.payload)
                    THEN s.next_run_at ELSE excluded.next_run_at END,
                updated_at = now()
            """;

    private static final String ALL = """
            SELECT name, queue, cron, fixed_rate_ms, zone, payload::text AS payload, payload_type, missed, next_run_at,
                   last_run_at
            FROM {schema}.schedule ORDER BY name
            """;

    private static final String DUE = """
            SELECT name, queue, cron, fixed_rate_ms, zone, payload::text AS payload, payload_type, missed, next_run_at,
                   last_run_at
            FROM {schema}.schedule WHERE next_run_at <= now() ORDER BY next_run_at
            """;

    private static final String NOW = "SELECT now()";

    /**
     * Moves the schedule from the tick it was due at to its next tick, if nobody did yet, and enqueues the
     * tick's job when asked to. Parameters: next, fired tick, name, expected next run, enqueue?, tick label,
     * channel.
     */
    private static final String FIRE = """
            WITH advanced AS (
                UPDATE {schema}.schedule SET next_run_at = ?, last_run_at = ?, updated_at = now()
                WHERE name = ? AND next_run_at = ?
                RETURNING name, queue, payload, payload_type
            ), inserted AS (
                INSERT INTO {schema}.job (queue, state, payload, payload_type, headers)
                SELECT queue, 'ready', coalesce(payload, '{}'::jsonb), payload_type,
                       jsonb_build_object('schedule', name, 'tick', ?::text)
                FROM advanced WHERE ?::boolean
                RETURNING id, queue, state
            )/*counters*/, counted AS (
                INSERT INTO {schema}.queue_counter_delta (queue, ready, enqueued)
                SELECT queue, count(*), count(*) FROM inserted GROUP BY queue
            )/*end*/, notified AS (
                SELECT pg_notify(?, queue) FROM inserted
            )
            SELECT (SELECT count(*) FROM advanced) AS advanced, (SELECT count(*) FROM inserted) AS inserted,
                   (SELECT count(*) FROM notified) AS notified
            """;

    private static final String DELETE = "DELETE FROM {schema}.schedule WHERE name = ?";

    private final JdbcTemplate jdbc;

    private final QueueTables tables;

    public ScheduleStore(DataSource dataSource, QueueTables tables) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.tables = tables;
    }

    public void declare(ScheduleRow row) {
        jdbc.update(tables.sql(DECLARE), row.name(), row.queue(), row.cron(), row.fixedRateMillis(), row.zone(),
                row.payloadJson(), row.payloadType(), row.missed(), Timestamp.from(row.nextRunAt()));
    }

    public List<ScheduleRow> all() {
        return jdbc.query(tables.sql(ALL), (rows, n) -> row(rows));
    }

    public List<ScheduleRow> due() {
        return jdbc.query(tables.sql(DUE), (rows, n) -> row(rows));
    }

    /** The database clock, which decides when ticks are due. */
    public Instant now() {
        Timestamp now = jdbc.queryForObject(NOW, Timestamp.class);
        return (now != null) ? now.toInstant() : Instant.now();
    }

    /**
     * Advances a due schedule from {@code expected} to {@code next}, enqueuing the job of {@code tick} if
     * {@code enqueue}.
     * @return whether this call won the tick
     */
    public boolean fire(ScheduleRow schedule, Instant tick, Instant next, boolean enqueue) {
        Boolean won = jdbc.queryForObject(tables.sql(FIRE), (rows, n) -> rows.getLong("advanced") > 0,
                Timestamp.from(next), Timestamp.from(tick), schedule.name(), Timestamp.from(schedule.nextRunAt()),
                tick.toString(), enqueue, tables.notifyChannel());
        return Boolean.TRUE.equals(won);
    }

    public boolean delete(String name) {
        return jdbc.update(tables.sql(DELETE), name) > 0;
    }

    private static ScheduleRow row(ResultSet rows) throws SQLException {
        long rate = rows.getLong("fixed_rate_ms");
        Long fixedRate = rows.wasNull() ? null : rate;
        Timestamp last = rows.getTimestamp("last_run_at");
        return new ScheduleRow(rows.getString("name"), rows.getString("queue"), rows.getString("cron"), fixedRate,
                rows.getString("zone"), rows.getString("payload"), rows.getString("payload_type"),
                rows.getString("missed"), rows.getTimestamp("next_run_at").toInstant(),
                (last != null) ? last.toInstant() : null);
    }
}
