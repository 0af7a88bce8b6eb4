package io.pgqueue.admin;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.model.QueueStats;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With a million jobs in the table, reading every queue's counts and lag (what a metrics refresh does), and
 * reading a page of a queue's jobs by any filter, scans no part of the job table sequentially.
 */
class LargeTableReadTests {

    private static final TestDatabase database = TestPostgres.createDatabase(LargeTableReadTests.class);

    @Test
    void metricsRefreshTouchesOnlyCountersAndIndexRangesOfAMillionJobTable() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.maintenance.enabled=false").run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            jdbc.execute("INSERT INTO pgqueue.job (queue, state, priority, run_at, payload, headers, group_key, dedup_key) "
                    + "SELECT 'big-' || (g % 4), CASE WHEN (g / 4) % 2 = 0 THEN 'ready' ELSE 'scheduled' END, (g % 3)::smallint, "
                    + "CASE WHEN (g / 4) % 2 = 0 THEN now() - (g || ' ms')::interval ELSE now() + interval '1 day' END, "
                    + "'{}'::jsonb, CASE WHEN g % 1000 = 0 THEN jsonb_build_object('tenant', 't' || (g % 7)) END, "
                    + "CASE WHEN g % 10 = 0 THEN 'g' || (g % 100) END, CASE WHEN g % 500 = 0 THEN 'd' || g END "
                    + "FROM generate_series(1, 1000000) AS g");
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

                // pages of jobs, by every filter: each an index range, never a scan of the table
                Instant now = Instant.now();
                List<JobQuery> queries = List.of(JobQuery.queue("big-1").build(),
                        JobQuery.queue("big-1").states(JobState.READY).limit(500).build().after(900_000),
                        JobQuery.queue("big-2").states(JobState.SCHEDULED, JobState.RUNNING, JobState.DEAD,
                                JobState.COMPLETED, JobState.CANCELLED).build(),
                        JobQuery.queue("big-2").groupKey("g10").build(),
                        JobQuery.queue("big-0").dedupKey("d1000").build(),
                        JobQuery.queue("big-0").header("tenant", "t3").build(),
                        JobQuery.queue("big-3").enqueuedAfter(now.minusSeconds(3600)).enqueuedBefore(now.plusSeconds(60))
                            .build());
                for (JobQuery query : queries) {
                    Map<String, Object> beforePage = scans(sameTransaction);
                    long pageStart = System.nanoTime();
                    JobPage page = admin.jobs(query);
                    long pageMillis = (System.nanoTime() - pageStart) / 1_000_000;
                    assertThat(page.jobs()).as(query.toString()).isNotEmpty();
                    assertThat(scans(sameTransaction).get("seq_scan")).as("sequential scans for " + query)
                        .isEqualTo(beforePage.get("seq_scan"));
                    assertThat(pageMillis).as("%s took %d ms", query, pageMillis).isLessThan(1000);
                }
            });
        });
    }

    private static Map<String, Object> scans(JdbcTemplate jdbc) {
        return jdbc.queryForMap("SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables "
                + "WHERE schemaname = 'pgqueue' AND relname = 'job'");
    }
}
