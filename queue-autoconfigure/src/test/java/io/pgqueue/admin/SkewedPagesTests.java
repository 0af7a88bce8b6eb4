package io.pgqueue.admin;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pages of jobs on a million-job table shared by five queues of unequal sizes and ages (each queue's jobs
 * sit together in id order, the oldest queue's below all others), after a fresh ANALYZE: every page reads only
 * its own index range, whichever queue, however old, with filters that match nothing and headers on many
 * rows. Measured as the rows the page's statement fetched (this transaction's table statistics), not as time:
 * a page reads its page of each state, or, when a filter matches few rows of a large range, at most that range
 * of its own queue — never other queues' rows (before: 950,061 rows for the oldest queue's first page).
 */
class SkewedPagesTests {

    private static final TestDatabase database = TestPostgres.createDatabase(SkewedPagesTests.class);

    /** Rows a page may fetch whatever its queue's size: its page of each state, and slack for the planner. */
    private static final long PAGE_ROWS = 5_000;

    @Test
    void everyPageReadsOnlyItsIndexRangeWhateverTheQueuesAgeAndSize() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.maintenance.enabled=false").run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            // oldest first: 'archive' 50,000 jobs, 'reports' 150,000, 'mail' 200,000, 'orders' 300,000, 'events' 300,000
            jdbc.execute("""
                    INSERT INTO pgqueue.job (queue, state, run_at, created_at, payload, headers, attempts, dead_at, last_error)
                    SELECT q, s, now() + interval '1 day', now() - ((1000000 - g) || ' seconds')::interval,
                           '{}'::jsonb, jsonb_build_object('tenant', 't' || (g % 40), 'region', 'eu'),
                           CASE WHEN s = 'dead' THEN 1 ELSE 0 END, CASE WHEN s = 'dead' THEN now() END,
                           CASE WHEN s = 'dead' THEN 'failed' END
                    FROM (SELECT g, CASE WHEN g <= 50000 THEN 'archive' WHEN g <= 200000 THEN 'reports'
                                         WHEN g <= 400000 THEN 'mail' WHEN g <= 700000 THEN 'orders' ELSE 'events' END AS q,
                                    CASE WHEN g % 20 = 0 THEN 'dead' WHEN g % 20 = 1 THEN 'ready' ELSE 'scheduled' END AS s
                          FROM generate_series(1, 1000000) AS g) AS rows
                    """);
            jdbc.execute("ANALYZE pgqueue.job");
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            admin.reconcile();

            Instant now = Instant.now();
            List<JobQuery> queries = List.of(JobQuery.queue("archive").build(),
                    JobQuery.queue("archive").states(JobState.DEAD).withoutContent().build(),
                    JobQuery.queue("reports").states(JobState.READY).build().after(60_000),
                    JobQuery.queue("archive").header("tenant", "nobody").build(),
                    JobQuery.queue("events").header("region", "us").build(),
                    JobQuery.queue("archive").groupKey("none").build(),
                    JobQuery.queue("mail").dedupKey("none").build(),
                    JobQuery.queue("archive").enqueuedBefore(now.minusSeconds(990_000)).build(),
                    JobQuery.queue("orders").enqueuedAfter(now.minusSeconds(350_000)).build());
            JdbcTemplate sameTransaction = new JdbcTemplate(context.getBean(DataSource.class));
            new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult((status) -> {
                for (JobQuery query : queries) {
                    long ownRange = jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ?", Long.class,
                            query.queue());
                    Map<String, Object> before = reads(sameTransaction);
                    JobPage page = admin.jobs(query);
                    Map<String, Object> after = reads(sameTransaction);
                    long read = (Long) after.get("fetched") - (Long) before.get("fetched")
                            + (Long) after.get("scanned") - (Long) before.get("scanned");
                    System.out.println("rows read: " + read + " for " + query);
                    boolean filtered = query.headerName() != null || query.groupKey() != null
                            || query.dedupKey() != null || query.enqueuedAfter() != null
                            || query.enqueuedBefore() != null;
                    assertThat(read).as("rows read for %s (%d jobs)", query, page.jobs().size())
                        .isLessThan(filtered ? Math.max(PAGE_ROWS, ownRange) : PAGE_ROWS);
                }
            });
        });
    }

    private static Map<String, Object> reads(JdbcTemplate jdbc) {
        return jdbc.queryForMap("SELECT coalesce(idx_tup_fetch, 0) AS fetched, coalesce(seq_tup_read, 0) AS scanned "
                + "FROM pg_stat_xact_user_tables WHERE schemaname = 'pgqueue' AND relname = 'job'");
    }
}
