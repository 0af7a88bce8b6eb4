package io.pgqueue.internal.persistence;

import java.util.List;
import java.util.Optional;

import io.pgqueue.model.VacuumHold;

/**
 * The JDBC {@link VacuumHorizonRepository}. Sessions of other roles show their transaction start only to a
 * role with {@code pg_read_all_stats} (or {@code pg_monitor}); without it the horizon is still seen (through
 * {@code pg_stat_activity}'s xmin, where visible, replication slots and prepared transactions) and aged from
 * when pgqueue first saw it. Only sessions of this database count: others do not hold back its tables.
 */
final class JdbcVacuumHorizonRepository implements VacuumHorizonRepository {

    private final Jdbc jdbc;

    private final Sql oldest;

    JdbcVacuumHorizonRepository(Jdbc jdbc, Schema schema) {
        this.jdbc = jdbc;
        this.oldest = schema.sql("vacuum.oldest", """
                SELECT kind, holder, pid, coalesce(since, now()) AS since, since IS NOT NULL AS start_known,
                       age(horizon) AS xid_age, horizon::text AS horizon
                FROM (
                    SELECT 'TRANSACTION' AS kind,
                           concat_ws(' ', nullif(application_name, ''), usename, state) AS holder, pid, xact_start AS since,
                           CASE WHEN backend_xid IS NOT NULL AND (backend_xmin IS NULL OR age(backend_xid) > age(backend_xmin))
                                THEN backend_xid ELSE backend_xmin END AS horizon
                    FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                      AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
                    UNION ALL
                    SELECT 'PREPARED_TRANSACTION', gid, NULL, prepared, transaction
                    FROM pg_prepared_xacts WHERE database = current_database()
                    UNION ALL
                    SELECT 'REPLICATION_SLOT', slot_name, active_pid, NULL, xmin
                    FROM pg_replication_slots WHERE xmin IS NOT NULL
                ) AS holds
                ORDER BY age(horizon) DESC
                LIMIT 1
                """);
    }

    @Override
    public Optional<Held> oldest() {
        List<Held> found = jdbc.query(oldest, Jdbc.Binder.NONE, (row) -> new Held(
                new VacuumHold(VacuumHold.Kind.valueOf(row.getString("kind")), row.getString("holder"),
                        row.getObject("pid", Integer.class), row.getTimestamp("since").toInstant(), row.getLong("xid_age")),
                row.getString("horizon"), row.getBoolean("start_known")));
        return found.stream().findFirst();
    }
}
