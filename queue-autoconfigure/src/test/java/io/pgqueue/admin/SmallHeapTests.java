package io.pgqueue.admin;

import java.util.Set;

import io.pgqueue.actuate.PgQueueEndpoint;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs with {@code -Xmx256m} (its own surefire execution): pages and bulk actions over 300 jobs of 1 MB each
 * (about 600 MB as Java strings) read only what they show or act on. Before, a masked endpoint page of 300,
 * "cancel matching" and "purge matching" each loaded every payload and ran out of memory.
 */
class SmallHeapTests {

    private static final TestDatabase database = TestPostgres.createDatabase(SmallHeapTests.class);

    private static final int JOBS = 300;

    @BeforeAll
    static void largeJobs() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.maintenance.enabled=false").run((context) -> {
        });
        // 1 MB of hex text each, barely compressible: TOAST keeps about half a megabyte per row
        new JdbcTemplate(database.dataSource()).update("""
                INSERT INTO pgqueue.job (queue, state, run_at, payload, attempts, dead_at, last_error)
                SELECT 'large', CASE WHEN n % 2 = 0 THEN 'scheduled' ELSE 'dead' END, now() + interval '1 hour',
                       jsonb_build_object('data', (SELECT string_agg(md5(n::text || '-' || k), '')
                                                   FROM generate_series(1, 32768) AS k)),
                       CASE WHEN n % 2 = 0 THEN 0 ELSE 1 END, CASE WHEN n % 2 = 0 THEN NULL ELSE now() END,
                       CASE WHEN n % 2 = 0 THEN NULL ELSE 'failed: ' || repeat('stack frame ', 300) END
                FROM generate_series(1, ?) AS n
                """, JOBS);
    }

    @Test
    void aMaskedEndpointPageAndBulkActionsOverLargeJobsFitInASmallHeap() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.maintenance.enabled=false").run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            // the rows came in behind pgqueue's back: let the counters know the queue
            admin.reconcile();
            PgQueueEndpoint endpoint = new PgQueueEndpoint(admin, null, Show.NEVER, Set.of());

            PgQueueEndpoint.QueueDetailDescriptor page = endpoint.queue(SecurityContext.NONE, "large", null, 50,
                    "scheduled,dead", null, null, null, null, null, JobQuery.MAX_LIMIT, null);
            assertThat(page.jobs()).hasSize(Math.min(JOBS, JobQuery.MAX_LIMIT));

            JobPage list = admin.jobs(JobQuery.queue("large").limit(JobQuery.MAX_LIMIT).withoutContent().build());
            assertThat(list.jobs()).allSatisfy((job) -> assertThat(job.payload()).isNull());
            assertThat(list.jobs()).filteredOn((job) -> job.lastError() != null)
                .allSatisfy((job) -> assertThat(job.lastError()).startsWith("failed:").hasSizeLessThanOrEqualTo(1000));

            BulkCancelResult cancelled = admin.cancel(JobQuery.queue("large").build());
            assertThat(cancelled.cancelled()).isEqualTo(JOBS / 2);
            assertThat(admin.purgeDead(JobQuery.queue("large").build())).isEqualTo(JOBS / 2);
        });
    }
}
