package io.pgqueue.admin;

import java.time.Duration;
import java.util.List;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.SendResult;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The smaller edges of job control found in review: a dedup window renewed by a send that inserted nothing,
 * a dedup key that looks like another job's id, a deep page of dead jobs, and "retry all matching" with jobs
 * that die again at once.
 */
class AdminEdgeTests {

    private static final TestDatabase database = TestPostgres.createDatabase(AdminEdgeTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.maintenance.enabled=false");

    private final Jobs jobs = new Jobs(database.dataSource());

    private final JdbcTemplate jdbc = jobs.jdbc();

    @Test
    void aSendTurnedAwayByALiveJobOfItsKeyDoesNotRenewTheDedupWindow() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            SendOptions window = SendOptions.builder().dedupKey("report-7").dedupFor(Duration.ofMillis(200))
                .delay(Duration.ofHours(1)).build();
            long first = template.send("windows", "first", window).jobId();
            await().atMost(Duration.ofSeconds(5)).until(() -> jdbc.queryForObject(
                    "SELECT expires_at < now() FROM pgqueue.dedup_window WHERE dedup_key = 'report-7'", Boolean.class));

            SendResult again = template.send("windows", "second", SendOptions.builder().dedupKey("report-7")
                .dedupFor(Duration.ofHours(1)).delay(Duration.ofHours(1)).build());

            assertThat(again.duplicate()).isTrue();
            assertThat(jdbc.queryForObject(
                    "SELECT expires_at < now() FROM pgqueue.dedup_window WHERE dedup_key = 'report-7'", Boolean.class))
                .as("the window the turned-away send would have taken stays expired").isTrue();
            context.getBean(QueueAdmin.class).cancel(first);
            assertThat(template.send("windows", "third", window).duplicate()).isFalse();
        });
    }

    @Test
    void retryingDeadJobsTellsADedupKeyFromAnIdThatReadsTheSame() {
        runner.run((context) -> {
            long plain = deadJob("lookalike", null);
            long keyed = deadJob("lookalike", Long.toString(plain));
            assertThat(context.getBean(QueueAdmin.class).retryDead("lookalike", List.of(plain, keyed))).isEqualTo(2);
            assertThat(jobs.row(plain).get("state")).isEqualTo("ready");
            assertThat(jobs.row(keyed).get("state")).isEqualTo("ready");
        });
    }

    @Test
    void aDeepPageOfDeadJobsHoldsTheRightJobsAndReadsOnlyTheirPayloads() {
        runner.run((context) -> {
            // payloads of about 13 KB of hex each: stored out of line, in the job table's TOAST table
            jdbc.update("""
                    INSERT INTO pgqueue.job (queue, state, payload, attempts, dead_at, last_error)
                    SELECT 'deep', 'dead', jsonb_build_object('n', n, 'data', (SELECT string_agg(md5(n || '-' || k), '')
                                                                               FROM generate_series(1, 400) AS k)),
                           1, now(), 'x'
                    FROM generate_series(1, 300) AS n
                    """);
            JdbcTemplate sameTransaction = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            List<DeadJob> page = new org.springframework.transaction.support.TransactionTemplate(
                    context.getBean(org.springframework.transaction.PlatformTransactionManager.class)).execute((status) -> {
                        long before = toastReads(sameTransaction);
                        List<DeadJob> read = context.getBean(QueueAdmin.class).deadJobs("deep", 250, 20);
                        // one TOAST index scan per payload read: the 20 shown, not the 250 skipped as well
                        assertThat(toastReads(sameTransaction) - before).as("payloads detoasted").isLessThanOrEqualTo(40);
                        return read;
                    });
            List<Long> expected = jdbc.queryForList(
                    "SELECT id FROM pgqueue.job WHERE queue = 'deep' AND state = 'dead' ORDER BY id DESC OFFSET 250 LIMIT 20",
                    Long.class);
            assertThat(page).extracting(DeadJob::id).containsExactlyElementsOf(expected);
            assertThat(page).allSatisfy((job) -> assertThat(job.payload()).contains("\"data\""));
        });
    }

    @Test
    void retryAllMatchingEndsWhenRetriedJobsDieAgainAtOnce() {
        runner.run((context) -> {
            jdbc.update("""
                    INSERT INTO pgqueue.job (queue, state, payload, attempts, dead_at, last_error)
                    SELECT 'relapse', 'dead', '{}'::jsonb, 1, now(), 'x' FROM generate_series(1, 250)
                    """);
            // every retried job of this queue is dead again before the retry statement returns, as a job that
            // fails at once on a fast consumer can be before the next page is read
            jdbc.execute("""
                    CREATE FUNCTION pgqueue.relapse() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF NEW.queue = 'relapse' AND OLD.state = 'dead' AND NEW.state = 'ready' THEN
                            NEW.state := 'dead';
                        END IF;
                        RETURN NEW;
                    END $$""");
            jdbc.execute("CREATE TRIGGER relapse BEFORE UPDATE ON pgqueue.job FOR EACH ROW EXECUTE FUNCTION pgqueue.relapse()");
            try {
                long retried = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> context.getBean(QueueAdmin.class)
                    .retryDead(JobQuery.queue("relapse").limit(100).build()));
                assertThat(retried).isEqualTo(250);
            }
            finally {
                jdbc.execute("DROP TRIGGER relapse ON pgqueue.job");
            }
        });
    }

    @Test
    void aDeadJobTellsWhenItDiedNotWhenItsLastAttemptWasDue() {
        runner.run((context) -> {
            long id = jdbc.queryForObject("""
                    INSERT INTO pgqueue.job (queue, state, payload, attempts, run_at, dead_at, last_error)
                    VALUES ('died', 'dead', '{}'::jsonb, 3, now() - interval '1 hour', now() - interval '1 minute', 'x')
                    RETURNING id""", Long.class);
            JobInfo job = context.getBean(QueueAdmin.class).job(id);
            java.time.Instant deadAt = jdbc.queryForObject("SELECT dead_at FROM pgqueue.job WHERE id = ?",
                    java.sql.Timestamp.class, id).toInstant();
            assertThat(job.finishedAt()).isEqualTo(deadAt).isAfter(job.runAt());
            assertThat(context.getBean(QueueAdmin.class)
                .jobs(JobQuery.queue("died").states(io.pgqueue.model.JobState.DEAD).withoutContent().build())
                .jobs()).extracting(JobInfo::finishedAt).containsExactly(deadAt);
        });
    }

    /** Index scans of the job table's TOAST table in this transaction: one per out-of-line value read. */
    private static long toastReads(JdbcTemplate jdbc) {
        return jdbc.queryForObject("""
                SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_xact_all_tables
                WHERE relid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'pgqueue.job'::regclass)""", Long.class);
    }

    private long deadJob(String queue, String dedupKey) {
        return jdbc.queryForObject("INSERT INTO pgqueue.job (queue, state, payload, attempts, dead_at, last_error, "
                + "dedup_key) VALUES (?, 'dead', '{}'::jsonb, 1, now(), 'x', ?) RETURNING id", Long.class, queue, dedupKey);
    }
}
