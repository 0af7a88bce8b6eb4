package io.pgqueue.maintenance;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job table that fills up before autovacuum first visits it (a new install, an emptied table) keeps the
 * statistics of its first, tiny days, and a plan prepared then looks jobs up by id with a sequential scan of
 * the whole heap; the steady-state benchmark fell behind on it for up to a minute. Maintenance analyzes the
 * table once its heap has outgrown what the statistics record, which rebuilds such plans.
 */
class PlannerStatisticsTests {

    private static final TestDatabase database = TestPostgres.createDatabase(PlannerStatisticsTests.class);

    private final Jobs jobs = new Jobs(database.dataSource());

    @Test
    void aPlanPreparedOnATinyJobTableIsRebuiltForItsSizeOnceTheHeapHasGrown() {
        QueueContextRunners.fastListeners(database).withPropertyValues("pgqueue.maintenance.interval=1h")
            .run((context) -> {
                jobs.jdbc().execute("ALTER TABLE pgqueue.job SET (autovacuum_enabled = false)");
                try (Connection connection = database.dataSource().getConnection();
                        Statement statement = connection.createStatement()) {
                    // the way a pooled connection's prepared claim caches its plan, made deterministic
                    statement.execute("SET plan_cache_mode = force_generic_plan");
                    statement.execute("PREPARE lookup(bigint[]) AS SELECT id FROM pgqueue.job WHERE id = ANY($1)");
                    assertThat(plan(statement)).contains("Seq Scan");

                    // jobs come and go faster than autovacuum: the heap fills with dead rows
                    jobs.jdbc().update("INSERT INTO pgqueue.job (queue, state, payload) "
                            + "SELECT 'grown', 'ready', jsonb_build_object('n', g) FROM generate_series(1, 50000) g");
                    jobs.jdbc().update("DELETE FROM pgqueue.job WHERE queue = 'grown'");
                    assertThat(plan(statement)).as("the cached plan, before maintenance").contains("Seq Scan");

                    context.getBean(QueueMaintenance.class).runOnce();

                    assertThat(plan(statement)).as("the cached plan, after maintenance")
                        .contains("Index")
                        .doesNotContain("Seq Scan");
                    assertThat(jobs.jdbc().queryForObject(
                            "SELECT relpages FROM pg_class WHERE oid = 'pgqueue.job'::regclass", Integer.class))
                        .isGreaterThanOrEqualTo(128);
                    statement.execute("DEALLOCATE lookup");
                }
            });
    }

    /**
     * The workflow edges' table fills and empties with every workflow: a fan-out's edges all name one parent, and
     * a node's completion found its edges by reading the whole table, dead rows included (a fan-out of 10,000
     * drained at a tenth of a plain drain in the benchmark).
     */
    @Test
    void aPlanPreparedOnATinyEdgeTableIsRebuiltForItsSizeOnceTheHeapHasGrown() {
        QueueContextRunners.fastListeners(database).withPropertyValues("pgqueue.maintenance.interval=1h")
            .run((context) -> {
                jobs.jdbc().execute("ALTER TABLE pgqueue.job_dependency SET (autovacuum_enabled = false)");
                // statistics taken while the table held a small workflow's edges
                jobs.jdbc().update("INSERT INTO pgqueue.job_dependency (parent_id, child_id, policy) "
                        + "SELECT 2, g, 'cancel' FROM generate_series(1, 3) g");
                jobs.jdbc().execute("ANALYZE pgqueue.job_dependency");
                jobs.jdbc().update("DELETE FROM pgqueue.job_dependency WHERE parent_id = 2");
                try (Connection connection = database.dataSource().getConnection();
                        Statement statement = connection.createStatement()) {
                    statement.execute("SET plan_cache_mode = force_generic_plan");
                    statement.execute("PREPARE lookup(bigint[]) AS "
                            + "SELECT child_id FROM pgqueue.job_dependency WHERE parent_id = ANY($1)");
                    assertThat(plan(statement)).contains("Seq Scan");

                    // a fan-out's edges, consumed when its parent finished
                    jobs.jdbc().update("INSERT INTO pgqueue.job_dependency (parent_id, child_id, policy) "
                            + "SELECT 1, g, 'cancel' FROM generate_series(1, 100000) g");
                    jobs.jdbc().update("DELETE FROM pgqueue.job_dependency WHERE parent_id = 1");
                    assertThat(plan(statement)).as("the cached plan, before maintenance").contains("Seq Scan");

                    context.getBean(QueueMaintenance.class).runOnce();

                    assertThat(plan(statement)).as("the cached plan, after maintenance")
                        .contains("Index")
                        .doesNotContain("Seq Scan");
                    statement.execute("DEALLOCATE lookup");
                }
                finally {
                    jobs.jdbc().execute("ALTER TABLE pgqueue.job_dependency RESET (autovacuum_enabled)");
                }
            });
    }

    private static String plan(Statement statement) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rows = statement.executeQuery("EXPLAIN EXECUTE lookup('{1,2,3}')")) {
            while (rows.next()) {
                plan.append(rows.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
