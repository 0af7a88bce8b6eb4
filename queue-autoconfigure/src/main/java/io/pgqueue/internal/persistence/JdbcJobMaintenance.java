package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job table's {@link JobMaintenancePort}: promotion of due jobs, expiry of dead jobs and dedup windows, and statistics.
 */
final class JdbcJobMaintenance implements JobMaintenancePort {

    private final DependencyCounts dependencyCounts;

    /** Live jobs of one queue or all queues that a listener would pick up now (exact; for tests). */
    /** Below this many pages (1 MB) a sequential scan costs nothing worth an ANALYZE. */
    private static final long STATISTICS_MIN_PAGES = 128;

    /** How many times the recorded size the heap must reach before statistics are refreshed. */
    private static final long STATISTICS_GROWTH = 4;

    private final Jdbc jdbc;

    private final Schema schema;

    private final TransactionTemplate transactions;

    private final ClaimStatements claims;

    private final FinishStatements finishes;

    private final Sql expireDedupWindows;

    private final Sql statisticsOutgrown;

    /** The tables whose statistics are refreshed when they outgrow them, with their ANALYZE statements. */
    private final Map<String, Sql> analyses;

    JdbcJobMaintenance(Jdbc jdbc, Schema schema, TransactionTemplate transactions, ClaimStatements claims, FinishStatements finishes, Sql expireDedupWindows, Sql statisticsOutgrown, Map<String, Sql> analyses,
            DependencyCounts dependencyCounts) {
        this.dependencyCounts = dependencyCounts;
        this.jdbc = jdbc;
        this.schema = schema;
        this.transactions = transactions;
        this.claims = claims;
        this.finishes = finishes;
        this.expireDedupWindows = expireDedupWindows;
        this.statisticsOutgrown = statisticsOutgrown;
        this.analyses = analyses;
    }

    @Override
    public int promoteDue(int limit) {
        return (int) jdbc.count(claims.promoteDue, (params) -> params.int4("promote_limit", limit));
    }

    @Override
    public int foldDependencyCounts() {
        return dependencyCounts.foldAny();
    }

    @Override
    public int expireDedupWindows(int limit) {
        return (int) jdbc.count(expireDedupWindows, (params) -> params.int4("limit", limit));
    }

    @Override
    public boolean refreshStatisticsIfGrown() {
        boolean any = false;
        for (Map.Entry<String, Sql> table : analyses.entrySet()) {
            any |= refreshIfGrown(table.getKey(), table.getValue());
        }
        return any;
    }

    private boolean refreshIfGrown(String table, Sql analyze) {
        // the job table's lock keeps its name of before, which older nodes take too
        String lock = "pgqueue.analyze." + schema.name() + (table.equals("job") ? "" : "." + table);
        Boolean analyzed = transactions.execute((status) -> {
            // the workflow tables are small even when a plan that reads them whole costs every node's completion
            long minPages = table.equals("job") ? STATISTICS_MIN_PAGES : STATISTICS_MIN_PAGES / 16;
            List<Boolean> outgrown = jdbc.query(statisticsOutgrown, (params) -> params.int8("min_pages", minPages)
                .int8("growth", STATISTICS_GROWTH)
                .text("lock", lock)
                .text("table", schema.name() + "." + table), (row) -> row.getBoolean(1));
            if (outgrown.isEmpty() || !outgrown.get(0)) {
                return false;
            }
            jdbc.update(analyze, (params) -> {
            });
            return true;
        });
        return Boolean.TRUE.equals(analyzed);
    }

    @Override
    public int expireDead(Duration retention, int limit) {
        return (int) jdbc.count(finishes.expireDead,
                (params) -> params.int8("retention_ms", retention.toMillis()).int4("limit", limit));
    }
}
