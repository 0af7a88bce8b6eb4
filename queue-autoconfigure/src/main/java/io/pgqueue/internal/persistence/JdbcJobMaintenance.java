package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;

import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job table's {@link JobMaintenancePort}: promotion of due jobs, expiry of dead jobs and dedup windows, and statistics.
 */
final class JdbcJobMaintenance implements JobMaintenancePort {

    private final DependencyCounts dependencyCounts;

    /** Live jobs of one queue or all queues that a listener would pick up now (exact; for tests). */

    /** How many times the recorded size the heap must reach before statistics are refreshed. */
    private static final long STATISTICS_GROWTH = 4;

    private final Jdbc jdbc;

    private final Schema schema;

    private final TransactionTemplate transactions;

    private final ClaimStatements claims;

    private final FinishStatements finishes;

    private final Sql expireDedupWindows;

    private final Sql statisticsOutgrown;

    /** The tables whose statistics are refreshed when they outgrow them. */
    private final List<Analysis> analyses;

    /**
     * A table whose statistics maintenance refreshes once its heap has outgrown them.
     *
     * @param table its name in the schema
     * @param lock the advisory lock that lets one node at a time analyze it
     * @param minPages below this heap size a whole read costs too little to analyze for
     * @param analyze its ANALYZE statement
     */
    record Analysis(String table, String lock, long minPages, Sql analyze) {
    }

    JdbcJobMaintenance(Jdbc jdbc, Schema schema, TransactionTemplate transactions, ClaimStatements claims, FinishStatements finishes, Sql expireDedupWindows, Sql statisticsOutgrown, List<Analysis> analyses,
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
        for (Analysis analysis : analyses) {
            any |= refreshIfGrown(analysis);
        }
        return any;
    }

    private boolean refreshIfGrown(Analysis analysis) {
        Boolean analyzed = transactions.execute((status) -> {
            List<Boolean> outgrown = jdbc.query(statisticsOutgrown, (params) -> params.int8("min_pages", analysis.minPages())
                .int8("growth", STATISTICS_GROWTH)
                .text("lock", analysis.lock())
                .text("table", schema.name() + "." + analysis.table()), (row) -> row.getBoolean(1));
            if (outgrown.isEmpty() || !outgrown.get(0)) {
                return false;
            }
            jdbc.update(analysis.analyze(), (params) -> {
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
