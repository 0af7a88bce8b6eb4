package io.pgqueue.admin;

import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With a million jobs in the table, reading every queue's counts and lag (what a metrics refresh does) scans
 * no part of the job table sequentially and takes milliseconds.
 */
class LargeTableReadTests {

    private static final TestDatabase database = TestPostgres.createDatabase(LargeTableReadTests.class);

    @Test
    void metricsRefreshTouchesOnlyCountersAndIndexRangesOfAMillionJobTable() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.maintenance.enabled=false").run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            jdbc.execute("INSERT INTO pgqueue.job (queue, state, priority, run_at, payload) "
                    + "SELECT 'big-' || (g % 4), CASE WHEN (g / 4) % 2 = 0 THEN 'ready' ELSE 'scheduled' END, (g % 3)::smallint, "
                    + "CASE WHEN (g / 4) % 2 = 0 THEN now() - (g || ' ms')::interval ELSE now() + interval '1 day' END, "
                    + "'{}'::jsonb FROM generate_series(1, 1000000) AS g");
            jdbc.execute("ANALYZE pgqueue.job");
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            admin.reconcile();

            JdbcTemplate sameTransaction = new JdbcTemplate(context.getBean(DataSource.class));
            new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult((status) -> {
                Map<String, Object> before = scans(sameTransaction);
                long start = System.nanoTime();
                List<QueueStats> queues = admin.queues();
                long millis = (System.nanoTime() - start) / 1_000_000;

                assertThat(queues).hasSize(4).allSatisfy((queue) -> {
                    assertThat(queue.counts().ready()).isEqualTo(125_000);
                    assertThat(queue.counts().scheduled()).isEqualTo(125_000);
                    assertThat(queue.lag()).isNotNull();
                });
                assertThat(millis).as("refresh took %d ms", millis).isLessThan(250);
                // this backend's not yet reported scans of the job table, before and after the refresh
                Map<String, Object> after = scans(sameTransaction);
                assertThat(after.get("seq_scan")).isEqualTo(before.get("seq_scan"));
                assertThat((Long) after.get("idx_scan")).isGreaterThan((Long) before.get("idx_scan"));
            });
        });
    }

    private static Map<String, Object> scans(JdbcTemplate jdbc) {
        return jdbc.queryForMap("SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables "
                + "WHERE schemaname = 'pgqueue' AND relname = 'job'");
    }
}
