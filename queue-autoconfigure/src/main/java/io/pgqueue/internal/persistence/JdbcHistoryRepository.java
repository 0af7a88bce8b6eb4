package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC {@link HistoryRepository}, and the one place that holds the text of the statements on
 * {@code job_history}: the copy that the finishing statements of {@link FinishStatements} embed, the finished
 * rows that {@link JobLookups} reads, the output update, and the partitions' upkeep: creation ahead, retention
 * by detaching and dropping whole partitions, analysis of the partitioned table.
 *
 * <p>Partition changes take locks on the partitioned table that finishing statements wait behind. Each runs
 * in its own short transaction with a lock timeout, and a drop is not even tried while a long transaction
 * holds a lock on the history (a {@code pg_dump}, a report), since it would only queue the acknowledgements
 * behind itself until it timed out.
 */
final class JdbcHistoryRepository implements HistoryRepository {

    private static final Log logger = LogFactory.getLog(JdbcHistoryRepository.class);

    /** How long a partition change waits for its lock before it is left to the next pass. */
    private static final String LOCK_TIMEOUT = "200ms";

    /** The partitions with their bounds, read back from the catalogue (bounds print with their offset). */
    private static final String PARTITIONS = """
            SELECT name, CASE WHEN m[1] = 'MINVALUE' THEN NULL ELSE btrim(m[1], '''')::timestamptz END AS from_bound,
                   btrim(m[2], '''')::timestamptz AS to_bound
            FROM (SELECT c.relname AS name,
                         regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\((.+)\\) TO \\((.+)\\)') AS m
                  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                  WHERE i.inhparent = to_regclass(:parent)) AS p
            ORDER BY to_bound NULLS LAST, name""";

    private final Jdbc jdbc;

    private final Schema schema;

    private final boolean enabled;

    private final TransactionTemplate transactions;

    private final Sql recordOutputs;

    private final Sql redate;

    private final Sql expire;

    private final Sql partitions;

    private final Sql now;

    private final Sql oneNodeAtATime;

    private final Sql lockTimeout;

    private final Sql heldByLongTransaction;

    private final Sql analyze;

    /** When this node last analysed the partitioned table (nanoTime), or 0 before the first time. */
    private final AtomicLong analyzedAt = new AtomicLong();

    JdbcHistoryRepository(Jdbc jdbc, Schema schema, boolean enabled) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.enabled = enabled;
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(jdbc.dataSource()));
        // the rows finished at this transaction's start (the claim archived them): one partition is read
        this.recordOutputs = schema.sql("history.record-outputs", ClaimSavepoint.RELEASE, """
                UPDATE {schema}.job_history h SET output = o.output::jsonb
                FROM unnest(:ids::bigint[], :outputs::text[]) AS o(id, output)
                WHERE h.id = o.id AND h.finished_at = now()""");
        // a row whose new date falls in another partition moves there (an UPDATE of the partition key)
        this.redate = schema.sql("history.redate", """
                UPDATE {schema}.job_history h SET finished_at = now() + o.after_us * interval '1 microsecond'
                FROM unnest(:ids::bigint[], :after_us::bigint[]) AS o(id, after_us)
                WHERE h.id = o.id AND h.finished_at = now()""");
        this.expire = schema.sql("history.expire", """
                WITH expired AS (
                    DELETE FROM {schema}.job_history_default WHERE id = ANY(ARRAY(
                        SELECT id FROM {schema}.job_history_default
                        WHERE finished_at < now() - :retention_ms * interval '1 millisecond'
                        LIMIT :limit FOR UPDATE SKIP LOCKED))
                    RETURNING id
                )
                SELECT count(*) FROM expired
                """);
        this.partitions = schema.sql("history.partitions", PARTITIONS);
        this.now = schema.sql("history.now", "SELECT now()");
        this.oneNodeAtATime = schema.sql("history.one-node-at-a-time", "SELECT pg_try_advisory_xact_lock(hashtext(:lock))");
        this.lockTimeout = schema.sql("history.lock-timeout", "SELECT set_config('lock_timeout', :timeout, true)");
        this.heldByLongTransaction = schema.sql("history.held-by-long-transaction", """
                SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                               WHERE l.relation = to_regclass(:parent) AND l.granted AND l.pid <> pg_backend_pid()
                                 AND a.xact_start < now() - interval '1 second')""");
        this.analyze = schema.sql("history.analyze", "ANALYZE {schema}.job_history");
    }

    @Override
    public boolean enabled() {
        return enabled;
    }

    /**
     * The {@link Transition.Cascade#HISTORY} of a finishing statement: the step that copies its finished rows
     * into job_history, to follow the step {@code finished} (which returns the finished columns and
     * {@code state}), or {@link Steps#NONE} when history is off. With {@code outputs}, the handlers' outputs come
     * as the parameter {@code outputs}, aligned with {@code ids}.
     */
    Steps archive(String finished, boolean outputs) {
        return archive(finished, outputs, "archived");
    }

    /** As {@link #archive(String, boolean)}, named {@code name} (a statement may archive twice). */
    Steps archive(String finished, boolean outputs, String name) {
        if (!enabled) {
            return Steps.NONE;
        }
        return Steps.step(name, """
                INSERT INTO {schema}.job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                                  dedup_key, created_at, run_at, attempted_at, last_error, state, output,
                                                  workflow_id, batch_id)
                SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
                       f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, %s, f.workflow_id,
                       f.batch_id
                FROM %s f%s""".formatted(outputs ? "o.output::jsonb" : "NULL::jsonb", finished, outputs
                ? " LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = f.id" : ""));
    }

    /**
     * The {@link Transition.Cascade#HISTORY_REMOVAL} of a statement that undoes a finishing one in the same
     * transaction, to follow the step {@code restored} (which returns the rows' {@code id}): removes the history
     * rows that statement copied, which finished at this transaction's start (so one partition is read), or
     * {@link Steps#NONE} when history is off.
     */
    Steps unarchive(String restored) {
        if (!enabled) {
            return Steps.NONE;
        }
        return Steps.step("unarchived", """
                DELETE FROM {schema}.job_history h
                WHERE h.finished_at = now() AND h.id IN (SELECT id FROM %s)""".formatted(restored));
    }

    @Override
    public boolean recordOutputs(long[] ids, String[] outputsJson) {
        if (!enabled || ids.length == 0) {
            return false;
        }
        jdbc.countAll(recordOutputs, (params) -> params.int8Array("ids", ids).array("outputs", "text", outputsJson));
        return true;
    }

    @Override
    public void redate(long[] ids, long[] finishedAfterMicros) {
        if (enabled && ids.length > 0) {
            jdbc.countAll(redate, (params) -> params.int8Array("ids", ids).int8Array("after_us", finishedAfterMicros));
        }
    }

    @Override
    public int expire(Duration retention, int limit) {
        return (int) jdbc.count(expire,
                (params) -> params.int8("retention_ms", retention.toMillis()).int4("limit", limit));
    }

    @Override
    public List<HistoryPartition> partitions() {
        return jdbc.query(partitions, (params) -> params.text("parent", parent()),
                (row) -> new HistoryPartition(row.getString("name"), JobLookups.instant(row.getTimestamp("from_bound")),
                        JobLookups.instant(row.getTimestamp("to_bound"))));
    }

    @Override
    public PartitionUpkeep maintainPartitions(PartitionPlan plan) {
        int created = 0;
        int dropped = 0;
        int deferred = 0;
        // one change per transaction: each holds its locks for milliseconds, and one that fails costs nothing else
        for (Change change = nextChange(plan, 0); change != null; change = nextChange(plan, deferred)) {
            if (!apply(change)) {
                deferred++;
            }
            else if (change.create()) {
                created++;
            }
            else {
                dropped++;
            }
        }
        boolean analyzed = false;
        long last = analyzedAt.get();
        if (created + dropped > 0 || last == 0 || System.nanoTime() - last > plan.analyzeEvery().toNanos()) {
            analyzed = Boolean.TRUE.equals(transactions.execute((status) -> {
                if (!tryLock()) {
                    return false;
                }
                jdbc.update(analyze, Jdbc.Binder.NONE);
                return true;
            }));
            if (analyzed) {
                analyzedAt.set(System.nanoTime());
            }
        }
        return new PartitionUpkeep(created, dropped, deferred, analyzed);
    }

    /** A partition to create or drop, as DDL on names and bounds this class made (never input). */
    private record Change(boolean create, String name, Instant from, Instant to) {
    }

    /**
     * The changes due, partitions past retention first, then the ranges from the current one to {@code ahead}
     * past it that no partition covers: the one after the first {@code skip} (those that could not be made), or
     * null when everything is in place. Ranges are aligned to the UTC epoch; one that overlaps a partition in
     * part (after the interval was changed) is left to the default partition.
     */
    private @Nullable Change nextChange(PartitionPlan plan, int skip) {
        Instant dbNow = jdbc.query(now, Jdbc.Binder.NONE, (row) -> row.getTimestamp(1).toInstant()).get(0);
        Instant horizon = dbNow.minus(plan.retention());
        List<HistoryPartition> existing = partitions().stream().filter((partition) -> !partition.isDefault()).toList();
        List<Change> due = new ArrayList<>();
        for (HistoryPartition partition : existing) {
            if (!partition.to().isAfter(horizon)) {
                due.add(new Change(false, partition.name(), Instant.EPOCH, partition.to()));
            }
        }
        long step = plan.interval().toMillis();
        // nothing is created before the current range: rows of the past went where they found room
        for (int k = 0; k <= plan.ahead(); k++) {
            Instant from = Instant.ofEpochMilli((Math.floorDiv(dbNow.toEpochMilli(), step) + k) * step);
            Instant to = from.plus(plan.interval());
            if (existing.stream().noneMatch((partition) -> (partition.from() == null || partition.from().isBefore(to))
                    && partition.to().isAfter(from))) {
                due.add(new Change(true, partitionName(from, plan.interval()), from, to));
            }
        }
        return (due.size() > skip) ? due.get(skip) : null;
    }

    private boolean apply(Change change) {
        try {
            return Boolean.TRUE.equals(transactions.execute((status) -> {
                if (!tryLock() || (!change.create() && jdbc.query(heldByLongTransaction,
                        (params) -> params.text("parent", parent()), (row) -> row.getBoolean(1)).get(0))) {
                    return false;
                }
                jdbc.query(lockTimeout, (params) -> params.text("timeout", LOCK_TIMEOUT), (row) -> row.getString(1));
                jdbc.update(change.create() ? schema.ddl("history.create-partition", createStatement(change.name(), change.from(), change.to()))
                        : schema.ddl("history.drop-partition", dropStatement(change.name())),
                        Jdbc.Binder.NONE);
                return true;
            }));
        }
        catch (DataAccessException ex) {
            logger.warn("Could not " + (change.create() ? "create" : "drop") + " history partition " + change.name()
                    + " (tried again at the next pass): " + ex.getMostSpecificCause().getMessage());
            return false;
        }
    }

    private boolean tryLock() {
        return jdbc.query(oneNodeAtATime, (params) -> params.text("lock", "pgqueue.history." + schema.name()),
                (row) -> row.getBoolean(1)).get(0);
    }

    static String[] createStatement(String partition, Instant from, Instant to) {
        return new String[] {
            "CREATE TABLE {schema}.%s (LIKE {schema}.job_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS)".formatted(partition),
            "CREATE INDEX %1$s_id_idx ON {schema}.%1$s (id)".formatted(partition),
            "ALTER TABLE {schema}.job_history ATTACH PARTITION {schema}.%s FOR VALUES FROM ('%s') TO ('%s')"
                .formatted(partition, from, to) };
    }

    static String[] dropStatement(String partition) {
        return new String[] { "ALTER TABLE {schema}.job_history DETACH PARTITION {schema}.%s".formatted(partition),
            "DROP TABLE {schema}.%s".formatted(partition) };
    }

    /** job_history_20261124 for partitions of whole days, job_history_20261124_13 for hours. */
    static String partitionName(Instant from, Duration interval) {
        String pattern = (interval.toHours() % 24 == 0) ? "yyyyMMdd" : "yyyyMMdd_HH";
        return "job_history_" + DateTimeFormatter.ofPattern(pattern, Locale.ROOT).withZone(ZoneOffset.UTC).format(from);
    }

    private String parent() {
        return schema.name() + ".job_history";
    }
}
