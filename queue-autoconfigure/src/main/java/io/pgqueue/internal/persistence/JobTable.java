package io.pgqueue.internal.persistence;

import java.util.List;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job table: its statements, which {@link InsertStatements}, {@link ClaimStatements}, {@link FinishStatements}
 * and {@link JobLookups} compose once at startup for the features switched on (counters, history), and one class
 * per port that runs them. Rows are found by primary key ({@code id = ANY(ARRAY(...))}) so that a busy or bloated
 * table never turns a statement into a sequential scan.
 */
final class JobTable {

    private final InsertStatements inserts;

    private final JdbcJobPublisher publishing;

    private final JdbcJobEngine engine;

    private final JdbcJobMaintenance maintenance;

    private final JdbcJobAdmin admin;

    JobTable(Jdbc jdbc, Schema schema, Counters counters, JdbcHistoryRepository history, boolean durableClaims) {
        TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(jdbc.dataSource()));
        TransactionTemplate besideTransaction = new TransactionTemplate(transactions.getTransactionManager());
        besideTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        besideTransaction.setReadOnly(true);
        FairnessCascade fairness = new FairnessCascade();
        BatchCascade batches = new BatchCascade(counters);
        this.inserts = new InsertStatements(schema, counters, batches, fairness);
        WorkflowCascade workflows = new WorkflowCascade(counters, history);
        FinishStatements finishes = new FinishStatements(schema, counters, history, workflows, batches, fairness);
        DependencyCounts dependencyCounts = new DependencyCounts(jdbc,
                schema.sql("workflow.fold-dependency-counts", workflows.foldStatement()));
        jdbc.onDependencyCountsLeft(dependencyCounts::left);
        ClaimStatements claims = new ClaimStatements(schema, counters, history, fairness, durableClaims);
        JobLookups lookups = new JobLookups(schema);
        // a prepared plan made while the table was a few pages long reads the primary key by a sequential scan,
        // which costs the whole heap once dead rows have piled up before the first autovacuum
        Sql statisticsOutgrown = schema.sql("maintenance.statistics-outgrown", """
                SELECT pg_relation_size(c.oid) / current_setting('block_size')::bigint >= :min_pages
                   AND pg_relation_size(c.oid) / current_setting('block_size')::bigint > :growth * greatest(c.relpages, 1)
                   AND pg_has_role(c.relowner, 'MEMBER')
                   AND pg_try_advisory_xact_lock(hashtext(:lock))
                FROM pg_class c WHERE c.oid = to_regclass(:table)
                """);
        // the workflow edges and the counts left beside their children too: ANALYZE run while such a table held
        // few rows leaves plans that read it whole, dead rows included, for each node that finishes; they stay
        // small even when such a read costs every node's completion, so they are looked at from 8 pages (the job
        // table from 128, 1 MB, below which a sequential scan costs nothing worth an ANALYZE); the job table's lock
        // keeps its name of before, which older nodes take too
        String lock = "pgqueue.analyze." + schema.name();
        List<JdbcJobMaintenance.Analysis> analyses = List.of(
                new JdbcJobMaintenance.Analysis("job", lock, 128,
                        schema.sql("maintenance.analyze", "ANALYZE {schema}.job")),
                new JdbcJobMaintenance.Analysis("job_dependency", lock + ".job_dependency", 8,
                        schema.sql("maintenance.analyze-dependencies", "ANALYZE {schema}.job_dependency")),
                new JdbcJobMaintenance.Analysis("job_dependency_done", lock + ".job_dependency_done", 8,
                        schema.sql("maintenance.analyze-dependency-counts", "ANALYZE {schema}.job_dependency_done")));
        Sql expireDedupWindows = schema.sql("enqueue.expire-dedup-windows", """
                WITH expired AS (
                    DELETE FROM {schema}.dedup_window WHERE (queue, dedup_key) IN (
                        SELECT queue, dedup_key FROM {schema}.dedup_window WHERE expires_at < now()
                        ORDER BY expires_at LIMIT :limit FOR UPDATE SKIP LOCKED)
                    RETURNING queue
                )
                SELECT count(*) FROM expired
                """);
        Sql findLiveByDedupKey = schema.sql("enqueue.find-live-by-dedup-key",
                "SELECT id FROM {schema}.job WHERE queue = :queue AND dedup_key = :dedup_key AND state <> 'dead'");
        this.publishing = new JdbcJobPublisher(jdbc, schema, inserts, findLiveByDedupKey);
        this.engine = new JdbcJobEngine(jdbc, schema, history, transactions, claims, finishes);
        this.maintenance = new JdbcJobMaintenance(jdbc, schema, transactions, claims, finishes, expireDedupWindows,
                statisticsOutgrown, analyses, dependencyCounts);
        this.admin = new JdbcJobAdmin(jdbc, finishes, lookups, besideTransaction);
    }

    /** The insert statements, whose CTEs a recurring schedule's tick reuses. */
    InsertStatements inserts() {
        return inserts;
    }

    JobPublishPort publishing() {
        return publishing;
    }

    JobEnginePort engine() {
        return engine;
    }

    JobMaintenancePort maintenance() {
        return maintenance;
    }

    JobAdminPort admin() {
        return admin;
    }
}
