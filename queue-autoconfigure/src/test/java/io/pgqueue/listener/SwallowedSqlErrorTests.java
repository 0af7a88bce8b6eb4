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
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.batch.Batch;
import io.pgqueue.model.BatchState;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A TRANSACTIONAL handler that catches an SQL error and returns leaves PostgreSQL's transaction aborted: every
 * later statement is refused and its COMMIT answers ROLLBACK, which the driver does not report. Such an attempt is
 * that handler's failure, recorded before the next job of its claim runs; it is counted, retried and ends dead like
 * any other, and the jobs claimed with it are not blamed. A statement after the handlers (outputs, cascades) that
 * fails counts like a failed commit.
 */
class SwallowedSqlErrorTests {

    private static final TestDatabase database = TestPostgres.createDatabase(SwallowedSqlErrorTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.history.enabled=true")
        .withBean(Handlers.class);

    private final Jobs jobs = new Jobs(database.dataSource());

    @BeforeAll
    static void tables() {
        new JdbcTemplate(database.dataSource()).execute("CREATE TABLE effect (job_id bigint NOT NULL, payload text)");
    }

    static class Handlers {

        final JdbcTemplate jdbc;

        /** Handler runs per job id, committed or not. */
        final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();

        Handlers(DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        int runs(long id) {
            AtomicInteger count = runs.get(id);
            return (count != null) ? count.get() : 0;
        }

        /** Writes its effect; a "poison" payload then runs a failing statement and swallows its error. */
        private void handle(String payload, JobContext context) {
            runs.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
            jdbc.update("INSERT INTO effect (job_id, payload) VALUES (?, ?)", context.id(), payload);
            if (payload.startsWith("poison") || (payload.startsWith("once") && context.attempt() == 1)) {
                swallowAnSqlError();
            }
        }

        /** Runs a failing statement and catches its error: what a handler that "handles" an SQL error does. */
        private void swallowAnSqlError() {
            try {
                jdbc.queryForObject("SELECT 1 / 0", Integer.class);
            }
            catch (DataAccessException swallowed) {
                // the transaction is aborted all the same
            }
        }

        @QueueListener(queue = "swallow-plain", mode = "TRANSACTIONAL", maxAttempts = "2", concurrency = "1",
                batchSize = "1")
        void plain(String payload, JobContext context) {
            handle(payload, context);
        }

        @QueueListener(queue = "swallow-claim", mode = "TRANSACTIONAL", maxAttempts = "2", concurrency = "1",
                batchSize = "5")
        void claimed(String payload, JobContext context) {
            handle(payload, context);
        }

        @QueueListener(queue = "swallow-node", mode = "TRANSACTIONAL", maxAttempts = "3", concurrency = "1",
                batchSize = "5")
        String node(String payload, JobContext context) {
            handle(payload, context);
            return "output of " + payload;
        }

        @QueueListener(queue = "swallow-member", mode = "TRANSACTIONAL", maxAttempts = "3", concurrency = "1",
                batchSize = "5")
        void member(String payload, JobContext context) {
            handle(payload, context);
        }

        /*
         * One attempt: the batch's jobs fail together, but each retry is timed from its own record's statement, so a
         * second claim may take them apart (a promotion between the two due times), and "x" alone would succeed.
         */
        @QueueListener(queue = "swallow-list", mode = "TRANSACTIONAL", maxAttempts = "1", concurrency = "1",
                batchSize = "5")
        void list(List<String> payloads) {
            jdbc.update("INSERT INTO effect (job_id, payload) VALUES (0, ?)", String.join(",", payloads));
            if (payloads.contains("poison")) {
                swallowAnSqlError();
            }
        }

        /** Releases pgqueue's claim savepoint, so that the statement after the handlers fails. */
        @QueueListener(queue = "swallow-after", mode = "TRANSACTIONAL", maxAttempts = "3", concurrency = "1",
                batchSize = "5")
        String releasesTheClaimSavepoint(String payload, JobContext context) {
            runs.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
            if (context.attempt() == 1) {
                jdbc.execute("RELEASE SAVEPOINT pgqueue_claim");
            }
            return "output of " + payload;
        }
    }

    private long effects(long id) {
        return jobs.jdbc().queryForObject("SELECT count(*) FROM effect WHERE job_id = ?", Long.class, id);
    }

    private String lastError(long id) {
        return jobs.jdbc().queryForObject("SELECT last_error FROM pgqueue.job WHERE id = ?", String.class, id);
    }

    @Test
    void aJobWhoseHandlerSwallowsAnSqlErrorIsCountedAndEndsDead() {
        runner.run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            long poison = context.getBean(QueueTemplate.class).send("swallow-plain", "poison");
            await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("swallow-plain", "dead") == 1);

            Map<String, Object> row = jobs.row(poison);
            assertThat(row.get("attempts")).isEqualTo(2);
            assertThat(handlers.runs(poison)).isEqualTo(2);
            assertThat(lastError(poison)).contains("TransactionAbortedException").contains("transaction was aborted");
            assertThat(effects(poison)).as("the aborted attempts' writes").isZero();
        });
    }

    @Test
    void aSwallowedErrorFirstInAClaimFailsOnlyItsOwnJob() {
        runner.run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            List<String> payloads = IntStream.range(0, 100).mapToObj((i) -> (i == 0) ? "poison" : "good " + i).toList();
            List<Long> ids = context.getBean(QueueTemplate.class).sendBatch("swallow-claim", payloads).jobIds();
            long poison = ids.get(0);
            await().atMost(Duration.ofSeconds(30)).until(() -> jobs.count("swallow-claim", "dead") == 1
                    && jobs.count("swallow-claim") == 1);

            assertThat(jobs.row(poison).get("state")).isEqualTo("dead");
            assertThat(handlers.runs(poison)).isEqualTo(2);
            for (long good : ids.subList(1, ids.size())) {
                assertThat(effects(good)).as("committed effects of good job %d", good).isEqualTo(1);
            }
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job_history WHERE id = ANY(?) "
                    + "AND attempts = 1", Long.class, (Object) ids.subList(1, ids.size()).toArray(Long[]::new)))
                .as("good jobs done at their first attempt").isEqualTo(99);
        });
    }

    @Test
    void aWorkflowNodeThatSwallowsAnErrorIsRetriedAndReleasesItsDependantOnce() {
        runner.run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            long workflow = context.getBean(WorkflowOperations.class).submit(Workflow.builder("swallow")
                .node(WorkflowNode.of("a", "swallow-node", "once a"))
                .node(WorkflowNode.of("b", "swallow-node", "b").after("a"))
                .build()).id();
            await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("swallow-node") == 0);

            List<Map<String, Object>> done = jobs.jdbc().queryForList("SELECT id, attempts, output #>> '{}' AS output "
                    + "FROM pgqueue.job_history WHERE workflow_id = ? ORDER BY id", workflow);
            assertThat(done).extracting((row) -> row.get("attempts")).containsExactly(2, 1);
            assertThat(done).extracting((row) -> row.get("output")).containsExactly("output of once a", "output of b");
            long a = (Long) done.get(0).get("id");
            assertThat(handlers.runs(a)).isEqualTo(2);
            assertThat(effects(a)).isEqualTo(1);
        });
    }

    @Test
    void aBatchMemberThatSwallowsAnErrorIsRetriedAndCountedOnce() {
        runner.run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            BatchOperations batches = context.getBean(BatchOperations.class);
            long batch = batches.open(Batch.builder("swallow").build());
            List<Long> ids = batches.addAll(batch, "swallow-member", List.of("once m", "m 1", "m 2")).jobIds();
            batches.seal(batch);
            await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("swallow-member") == 0);

            assertThat(handlers.runs(ids.get(0))).isEqualTo(2);
            assertThat(ids).allSatisfy((id) -> assertThat(effects(id)).isEqualTo(1));
            assertThat(context.getBean(QueueAdmin.class).batch(batch).orElseThrow().state())
                .isEqualTo(BatchState.SUCCEEDED);
        });
    }

    @Test
    void aBatchListenerThatSwallowsAnErrorFailsItsBatch() {
        runner.run((context) -> {
            List<Long> ids = context.getBean(QueueTemplate.class).sendBatch("swallow-list", List.of("poison", "x"))
                .jobIds();
            await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("swallow-list", "dead") == 2);

            assertThat(ids).allSatisfy((id) -> assertThat(lastError(id)).contains("TransactionAbortedException"));
            assertThat(ids).allSatisfy((id) -> assertThat(jobs.row(id).get("attempts")).isEqualTo(1));
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM effect WHERE job_id = 0", Long.class)).isZero();
        });
    }

    @Test
    void aFailedStatementAfterTheHandlersCountsTheirAttempts() {
        runner.run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            long id = context.getBean(QueueTemplate.class).send("swallow-after", "after");
            await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("swallow-after") == 0);

            assertThat(handlers.runs(id)).isEqualTo(2);
            assertThat(jobs.jdbc().queryForObject("SELECT attempts FROM pgqueue.job_history WHERE id = ?",
                    Integer.class, id)).isEqualTo(2);
        });
    }
}
