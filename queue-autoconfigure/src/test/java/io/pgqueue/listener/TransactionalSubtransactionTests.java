package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A TRANSACTIONAL claim locks its jobs in the handlers' transaction itself and sets its savepoint after them, so
 * a handler that succeeds without writing runs in no subtransaction, and the claim and the acknowledgement never
 * do: a subtransaction with an id costs every snapshot that sees it a lookup in {@code pg_subtrans} once a
 * long transaction keeps it in view. A failure still rolls back to the savepoint and is recorded before any
 * other worker can take the job.
 */
class TransactionalSubtransactionTests {

    private static final TestDatabase database = TestPostgres.createDatabase(TransactionalSubtransactionTests.class);

    /** The low 32 bits of the transaction's top-level id: what {@code xmin} and {@code xmax} hold. */
    private static final String TOP_LEVEL_XID = "SELECT pg_current_xact_id()::text::bigint % 4294967296";

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.history.enabled=true", "pgqueue.listener.backoff.initial=10ms",
                "pgqueue.listener.backoff.max=10ms")
        .withBean(Handlers.class);

    static class Handlers {

        final JdbcTemplate jdbc;

        /** Each job's top-level transaction id, and the transaction id that locked its row, seen by its handler. */
        final Map<Long, List<Long>> seen = new ConcurrentHashMap<>();

        final AtomicInteger failures = new AtomicInteger();

        final java.util.concurrent.CountDownLatch dedupRunning = new java.util.concurrent.CountDownLatch(1);

        final java.util.concurrent.CountDownLatch dedupRelease = new java.util.concurrent.CountDownLatch(1);

        Handlers(DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        @QueueListener(queue = "tx-reads", mode = "TRANSACTIONAL", batchSize = "5")
        String reads(String payload, JobContext context) {
            long topLevel = jdbc.queryForObject(TOP_LEVEL_XID, Long.class);
            // the row as this transaction sees it: locked by the claim, or gone if the claim deleted it
            List<Long> locker = jdbc.queryForList("SELECT xmax::text::bigint FROM pgqueue.job WHERE id = ? AND state = 'ready'",
                    Long.class, context.id());
            seen.put(context.id(), java.util.Arrays.asList(topLevel, locker.isEmpty() ? null : locker.get(0)));
            return payload;
        }

        @QueueListener(queue = "tx-dedup", mode = "TRANSACTIONAL", batchSize = "1")
        void dedup(String payload) throws InterruptedException {
            dedupRunning.countDown();
            assertThat(dedupRelease.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }

        @QueueListener(queue = "tx-writes", mode = "TRANSACTIONAL", batchSize = "1")
        void writes(String payload, JobContext context) {
            jdbc.update("INSERT INTO written (job_id, attempt) VALUES (?, ?)", context.id(), context.attempt());
            if (context.attempt() == 1) {
                failures.incrementAndGet();
                throw new IllegalStateException("first attempt of " + payload);
            }
        }
    }

    @Test
    void handlersThatSucceedWithoutWritingRunInNoSubtransactionAndTheirJobsAreClaimedAndDeletedAtTopLevel() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            Handlers handlers = context.getBean(Handlers.class);
            List<Long> ids = IntStream.range(0, 20).mapToObj((i) -> template.send("tx-reads", "job " + i)).toList();
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.seen.size() == ids.size()
                    && new JdbcTemplate(database.dataSource())
                        .queryForObject("SELECT count(*) FROM pgqueue.job_history WHERE id = ANY(?)", Long.class,
                                (Object) ids.toArray(Long[]::new)) == ids.size());
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            for (long id : ids) {
                List<Long> seen = handlers.seen.get(id);
                long topLevel = seen.get(0);
                // the claim's row lock is the transaction's own, not a subtransaction's
                assertThat(seen.get(1)).as("locker of job %d", id).isEqualTo(topLevel);
                // the acknowledgement that archived it ran at top level too, and carried the handler's output
                Map<String, Object> archived = jdbc.queryForMap(
                        "SELECT xmin::text::bigint AS xmin, output #>> '{}' AS output, attempts FROM pgqueue.job_history WHERE id = ?", id);
                assertThat(archived.get("xmin")).as("xmin of job %d's history row", id).isEqualTo(topLevel);
                assertThat(archived.get("output")).asString().startsWith("job ");
                assertThat(archived.get("attempts")).isEqualTo(1);
            }
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'tx-reads'", Long.class)).isZero();
        });
    }

    @Test
    void aFailureRollsTheHandlersWritesBackAndIsRecordedWhileTheJobStaysLocked() {
        new JdbcTemplate(database.dataSource()).execute("CREATE TABLE IF NOT EXISTS written (job_id bigint, attempt int)");
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            Handlers handlers = context.getBean(Handlers.class);
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            List<Long> ids = IntStream.range(0, 10).mapToObj((i) -> template.send("tx-writes", "job " + i)).toList();
            await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM pgqueue.job WHERE queue = 'tx-writes'", Long.class) == 0);
            assertThat(handlers.failures).hasValue(ids.size());
            // each job ran twice; only the second attempt's write committed, with its acknowledgement
            assertThat(jdbc.queryForList("SELECT attempt FROM written ORDER BY job_id", Integer.class))
                .hasSize(ids.size())
                .containsOnly(2);
            assertThat(jdbc.queryForList("SELECT attempts FROM pgqueue.job_history WHERE id = ANY(?)", Integer.class,
                    (Object) ids.toArray(Long[]::new))).hasSize(ids.size()).containsOnly(2);
        });
    }

    @Test
    void whileAJobRunsASendWithItsDedupKeyIsTurnedAwayAtOnce() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            Handlers handlers = context.getBean(Handlers.class);
            io.pgqueue.SendOptions key = io.pgqueue.SendOptions.builder().dedupKey("report-42").build();
            long running = java.util.Objects.requireNonNull(template.send("tx-dedup", "first", key).jobId());
            assertThat(handlers.dedupRunning.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            // the running job's row is live and locked by its claim: the send does not wait for the handler
            io.pgqueue.model.SendResult second = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> template.send("tx-dedup", "second", key))
                .get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(second.duplicate()).isTrue();
            handlers.dedupRelease.countDown();
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM pgqueue.job WHERE queue = 'tx-dedup'", Long.class) == 0);
            assertThat(jdbc.queryForList("SELECT id FROM pgqueue.job_history WHERE queue = 'tx-dedup'", Long.class))
                .containsExactly(running);
        });
    }
}
