package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A TRANSACTIONAL claim deletes its jobs at the transaction's top level and sets its savepoint after them, so a
 * handler that succeeds runs in no subtransaction of its own. A failure rolls back to that savepoint and puts the
 * claimed rows back exactly as they were, in the same transaction that records it: no other worker can take the
 * job before its failure is written, and nothing of the rest of the batch is lost or counted.
 */
class TransactionalClaimRestoreTests {

    private static final TestDatabase database = TestPostgres.createDatabase(TransactionalClaimRestoreTests.class);

    /** The low 32 bits of the transaction's top-level id: what {@code xmin} holds. */
    private static final String TOP_LEVEL_XID = "SELECT pg_current_xact_id()::text::bigint % 4294967296";

    /** Every column of a job's row but those a failed attempt changes. */
    private static final String UNCHANGED_BY_A_FAILURE = "SELECT id, (to_jsonb(j) - 'state' - 'attempts' - 'last_error' "
            + "- 'run_at' - 'max_attempts')::text AS image FROM pgqueue.job j WHERE queue = ? ORDER BY id";

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.history.enabled=true", "pgqueue.listener.backoff.jitter=0",
                "pgqueue.queues.tx-fair-top-level.fairness.enabled=true",
                "pgqueue.queues.tx-fair-restore.fairness.enabled=true")
        .withBean(Handlers.class);

    static class Handlers {

        final JdbcTemplate jdbc;

        /** Each job's top-level transaction id, seen by its handler. */
        final Map<Long, Long> topLevel = new ConcurrentHashMap<>();

        /** The top-level transaction ids seen by the batch listener. */
        final Set<Long> listTransactions = ConcurrentHashMap.newKeySet();

        Handlers(DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        @QueueListener(queue = "tx-top-level", mode = "TRANSACTIONAL", batchSize = "5")
        String reads(String payload, JobContext context) {
            topLevel.put(context.id(), jdbc.queryForObject(TOP_LEVEL_XID, Long.class));
            return payload;
        }

        /** A workflow node whose output is written first at the end of its batch, releasing the claim's savepoint. */
        @QueueListener(queue = "tx-node", mode = "TRANSACTIONAL", batchSize = "5")
        String node(String payload, JobContext context) {
            topLevel.put(context.id(), jdbc.queryForObject(TOP_LEVEL_XID, Long.class));
            return payload;
        }

        /** A batch member without an output: its cascade is what releases the claim's savepoint. */
        @QueueListener(queue = "tx-member", mode = "TRANSACTIONAL", batchSize = "5")
        void member(String payload, JobContext context) {
            topLevel.put(context.id(), jdbc.queryForObject(TOP_LEVEL_XID, Long.class));
        }

        /** Batch members handled by a batch listener: the same, on the batch listener's path. */
        @QueueListener(queue = "tx-member-list", mode = "TRANSACTIONAL", batchSize = "5")
        void members(List<String> payloads) {
            listTransactions.add(jdbc.queryForObject(TOP_LEVEL_XID, Long.class));
        }

        @QueueListener(queue = "tx-restore", mode = "TRANSACTIONAL", batchSize = "5")
        void failsTheThird(String payload, JobContext context) {
            jdbc.update("INSERT INTO written (job_id, attempt) VALUES (?, ?)", context.id(), context.attempt());
            if (payload.equals("job 2")) {
                throw new IllegalStateException("the third fails");
            }
        }

        /** A fair queue's handler without an output: only the claim writes a job's history row. */
        @QueueListener(queue = "tx-fair-top-level", mode = "TRANSACTIONAL", concurrency = "1", batchSize = "5")
        void fairReads(String payload, JobContext context) {
            topLevel.put(context.id(), jdbc.queryForObject(TOP_LEVEL_XID, Long.class));
        }

        @QueueListener(queue = "tx-fair-restore", mode = "TRANSACTIONAL", concurrency = "1", batchSize = "5")
        void fairFailsTheThird(String payload, JobContext context) {
            jdbc.update("INSERT INTO fair_written (job_id, attempt) VALUES (?, ?)", context.id(), context.attempt());
            if (payload.equals("job 2")) {
                throw new IllegalStateException("the third fails");
            }
        }
    }

    @Test
    void theClaimAndItsHistoryRowsBelongToTheTopLevelTransactionOfTheHandlersThatSucceed() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            Handlers handlers = context.getBean(Handlers.class);
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            List<Long> ids = IntStream.range(0, 20).mapToObj((i) -> template.send("tx-top-level", "job " + i)).toList();
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.topLevel.size() == ids.size()
                    && jdbc.queryForObject("SELECT count(*) FROM pgqueue.job_history WHERE id = ANY(?)", Long.class,
                            (Object) ids.toArray(Long[]::new)) == ids.size());
            for (long id : ids) {
                // the claim archived the job: written by the transaction itself, not by a subtransaction,
                // and so did the statement that wrote the handlers' outputs into it, at the end of the batch
                Map<String, Object> archived = jdbc.queryForMap("SELECT xmin::text::bigint AS xmin, output #>> '{}' "
                        + "AS output, attempts FROM pgqueue.job_history WHERE id = ?", id);
                assertThat(archived.get("xmin")).as("xmin of job %d's history row", id)
                    .isEqualTo(handlers.topLevel.get(id));
                assertThat(archived.get("output")).asString().startsWith("job ");
                assertThat(archived.get("attempts")).isEqualTo(1);
            }
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'tx-top-level'", Long.class))
                .isZero();
        });
    }

    @Test
    void theCascadesOfNodesAndMembersThatSucceedAreWrittenByTheTopLevelTransaction() {
        runner.run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            WorkflowOperations workflows = context.getBean(WorkflowOperations.class);
            List<Long> workflowIds = IntStream.range(0, 6).mapToObj((i) -> workflows.submit(Workflow.builder("w" + i)
                .node(WorkflowNode.of("a", "tx-node", "a" + i))
                .node(WorkflowNode.of("b", "tx-waiting", "b" + i).after("a"))
                .build()).id()).toList();
            long known = context.getBean(QueueTemplate.class).send("tx-callback", "makes the queue known");
            BatchOperations batches = context.getBean(BatchOperations.class);
            // sealed with their members: the last member's cascade, not the seal, fires each callback
            new TransactionTemplate(new DataSourceTransactionManager(context.getBean(DataSource.class)))
                .executeWithoutResult((status) -> {
                    for (String queue : List.of("tx-member", "tx-member-list")) {
                        long batchId = batches.open(Batch.builder(queue).onSuccess("tx-callback").build());
                        IntStream.range(0, 3).forEach((i) -> batches.add(batchId, queue, "m" + i));
                        batches.seal(batchId);
                    }
                });
            await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject("SELECT count(*) FROM pgqueue.job "
                    + "WHERE queue IN ('tx-waiting', 'tx-callback') AND state = 'ready'", Long.class) == 9);

            for (long workflowId : workflowIds) {
                // a's completion and the release of b: written with a's claim, not in a subtransaction
                Map<String, Object> a = jdbc.queryForMap("SELECT job_id, xmin::text::bigint AS xmin, output #>> '{}' "
                        + "AS output FROM pgqueue.workflow_node WHERE workflow_id = ? AND name = 'a'", workflowId);
                long handlerTransaction = handlers.topLevel.get((Long) a.get("job_id"));
                assertThat(a.get("xmin")).as("xmin of workflow %d's node a", workflowId).isEqualTo(handlerTransaction);
                assertThat(a.get("output")).asString().startsWith("a");
                assertThat(jdbc.queryForObject("SELECT j.xmin::text::bigint FROM pgqueue.job j JOIN pgqueue.workflow_node n "
                        + "ON n.job_id = j.id WHERE n.workflow_id = ? AND n.name = 'b'", Long.class, workflowId))
                    .as("xmin of workflow %d's node b, released", workflowId).isEqualTo(handlerTransaction);
            }
            // each batch's success callback: inserted by the transaction of the member that completed the batch
            Set<Long> handlerTransactions = new HashSet<>(handlers.topLevel.values());
            handlerTransactions.addAll(handlers.listTransactions);
            assertThat(jdbc.queryForList("SELECT xmin::text::bigint FROM pgqueue.job WHERE queue = 'tx-callback' "
                    + "AND id <> ?", Long.class, known)).hasSize(2).allSatisfy((xmin) -> assertThat(handlerTransactions)
                        .as("transactions of the members' handlers").contains(xmin));
        });
    }

    @Test
    void aFailureInABatchPutsEveryClaimedRowBackAsItWasAndRecordsOnlyTheFailedAttempt() {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("CREATE TABLE IF NOT EXISTS written (job_id bigint, attempt int)");
        runner.withPropertyValues("pgqueue.listener.auto-startup=false", "pgqueue.listener.backoff.initial=1h",
                    "pgqueue.listener.backoff.max=1h")
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                List<Long> ids = IntStream.range(0, 5)
                    .mapToObj((i) -> template.send("tx-restore", "job " + i, everyColumn(i, SendOptions.builder())).jobId())
                    .toList();
                long failed = ids.get(2);
                List<Map<String, Object>> before = jdbc.queryForList(UNCHANGED_BY_A_FAILURE, "tx-restore");
                Map<String, Object> failedBefore = jdbc.queryForMap(
                        "SELECT run_at, max_attempts FROM pgqueue.job WHERE id = ?", failed);
                long completedBefore = completedTotal(jdbc);

                context.getBean(QueueListenerContainerRegistry.class).getListenerContainers().stream()
                    .filter((container) -> container.queue().equals("tx-restore"))
                    .forEach(QueueListenerContainer::start);
                await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                        "SELECT count(*) FROM pgqueue.job WHERE queue = 'tx-restore'", Long.class) == 1);

                // the failed job: every column as sent, but its counted attempt, its error and its retry time
                Map<String, Object> failedAfter = jdbc.queryForMap(
                        "SELECT state, attempts, last_error, run_at > ? AS later, max_attempts FROM pgqueue.job WHERE id = ?",
                        failedBefore.get("run_at"), failed);
                assertThat(failedAfter.get("state")).isEqualTo("scheduled");
                assertThat(failedAfter.get("attempts")).isEqualTo(1);
                assertThat(failedAfter.get("last_error")).asString().contains("the third fails");
                assertThat(failedAfter.get("later")).isEqualTo(true);
                assertThat(jdbc.queryForList(UNCHANGED_BY_A_FAILURE, "tx-restore")).containsExactly(
                        before.stream().filter((row) -> row.get("id").equals(failed)).findFirst().orElseThrow());
                // the others ran again and completed once, their rolled-back attempt uncounted
                assertThat(jdbc.queryForList("SELECT attempts FROM pgqueue.job_history WHERE id = ANY(?)",
                        Integer.class, (Object) ids.toArray(Long[]::new))).hasSize(4).containsOnly(1);
                // of the first batch's writes none remain; each job's committed write is its last run's
                assertThat(jdbc.queryForList("SELECT job_id FROM written ORDER BY job_id", Long.class))
                    .containsExactlyElementsOf(ids.stream().filter((id) -> id != failed).toList());
                // counted: four completed, one failed, nothing completed twice or left running
                await().atMost(Duration.ofSeconds(10)).until(() -> completedTotal(jdbc) - completedBefore == 4);
                Map<String, Object> counts = jdbc.queryForMap("SELECT sum(ready) AS ready, sum(running) AS running, "
                        + "sum(scheduled) AS scheduled, sum(failed) AS failed FROM (SELECT ready, running, scheduled, failed "
                        + "FROM pgqueue.queue_counter WHERE queue = 'tx-restore' UNION ALL SELECT ready, running, "
                        + "scheduled, failed FROM pgqueue.queue_counter_delta WHERE queue = 'tx-restore') c");
                assertThat(counts).containsEntry("ready", java.math.BigDecimal.ZERO)
                    .containsEntry("running", java.math.BigDecimal.ZERO)
                    .containsEntry("scheduled", java.math.BigDecimal.ONE)
                    .containsEntry("failed", java.math.BigDecimal.ONE);
            });
    }

    @Test
    void aFairQueuesKeyAloneIsClaimedAtTheTopLevelAsAPlainQueuesJobsAre() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            Handlers handlers = context.getBean(Handlers.class);
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            List<Long> ids = new TransactionTemplate(new DataSourceTransactionManager(context.getBean(DataSource.class)))
                .execute((status) -> {
                    sendFirstClaimsBatch(template, "tx-fair-top-level");
                    return IntStream.range(0, 20)
                        .mapToObj((i) -> template.send("tx-fair-top-level", "job " + i,
                                SendOptions.builder().fairnessKey("tenant").build()).jobId())
                        .toList();
                });
            await().atMost(Duration.ofSeconds(20)).until(() -> archived(jdbc, ids) == ids.size());
            for (long id : ids) {
                // the claim archived the job (the handler has no output to write into its row afterwards): at the
                // transaction's top level, not in the savepoint's subtransaction
                assertThat(jdbc.queryForObject("SELECT xmin::text::bigint FROM pgqueue.job_history WHERE id = ?",
                        Long.class, id)).as("xmin of job %d's history row", id).isEqualTo(handlers.topLevel.get(id));
            }
        });
    }

    @Test
    void aFailureInAFairKeyAlonesBatchPutsEveryClaimedRowBackAsItWas() {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("CREATE TABLE IF NOT EXISTS fair_written (job_id bigint, attempt int)");
        runner.withPropertyValues("pgqueue.listener.backoff.initial=1h", "pgqueue.listener.backoff.max=1h")
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                List<Long> ids = new TransactionTemplate(new DataSourceTransactionManager(context.getBean(DataSource.class)))
                    .execute((status) -> {
                        sendFirstClaimsBatch(template, "tx-fair-restore");
                        return IntStream.range(0, 5)
                            .mapToObj((i) -> template.send("tx-fair-restore", "job " + i,
                                    everyColumn(i, SendOptions.builder().fairnessKey("tenant"))).jobId())
                            .toList();
                    });
                long failed = ids.get(2);
                List<Map<String, Object>> before = jdbc.queryForList(UNCHANGED_BY_A_FAILURE, "tx-fair-restore")
                    .stream().filter((row) -> row.get("id").equals(failed)).toList();
                await().atMost(Duration.ofSeconds(20)).until(() -> archived(jdbc, ids) == 4);

                assertThat(jdbc.queryForMap("SELECT state, attempts, last_error FROM pgqueue.job WHERE id = ?", failed))
                    .containsEntry("state", "scheduled")
                    .containsEntry("attempts", 1)
                    .hasEntrySatisfying("last_error", (error) -> assertThat(error).asString().contains("the third fails"));
                // of the key alone's claim: the failed job as it was sent, the others ran again and completed once
                assertThat(jdbc.queryForList(UNCHANGED_BY_A_FAILURE, "tx-fair-restore")).containsExactlyElementsOf(before);
                assertThat(jdbc.queryForList("SELECT attempts FROM pgqueue.job_history WHERE id = ANY(?)",
                        Integer.class, (Object) ids.toArray(Long[]::new))).hasSize(4).containsOnly(1);
                assertThat(jdbc.queryForList("SELECT job_id FROM fair_written WHERE job_id = ANY(?) ORDER BY job_id",
                        Long.class, (Object) ids.toArray(Long[]::new)))
                    .containsExactlyElementsOf(ids.stream().filter((id) -> id != failed).toList());
            });
    }

    /**
     * Five jobs of a fair queue's only key, of a higher priority than the test's own: its listener's one worker
     * claims them first, with the fair claim (or the key alone's), which finds the key alone, so that the test's
     * jobs are claimed as the key alone's.
     */
    private static void sendFirstClaimsBatch(QueueTemplate template, String queue) {
        IntStream.range(0, 5).forEach((i) -> template.send(queue, "first " + i,
                SendOptions.builder().fairnessKey("tenant").priority(10).build()));
    }

    /** Job {@code i}'s options: a value of its own in every column a send can set, which a restore must put back. */
    private static SendOptions everyColumn(int i, SendOptions.Builder options) {
        return options.priority(i + 1)
            .header("tenant", "t" + i)
            .groupKey("group " + i)
            .dedupKey("dedup " + i)
            .timeout(Duration.ofSeconds(30 + i))
            .build();
    }

    /** How many of these jobs have a history row. */
    private static long archived(JdbcTemplate jdbc, List<Long> ids) {
        return jdbc.queryForObject("SELECT count(*) FROM pgqueue.job_history WHERE id = ANY(?)", Long.class,
                (Object) ids.toArray(Long[]::new));
    }

    private static long completedTotal(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT coalesce(sum(completed), 0) FROM (SELECT completed FROM pgqueue.queue_counter "
                + "WHERE queue = 'tx-restore' UNION ALL SELECT completed FROM pgqueue.queue_counter_delta "
                + "WHERE queue = 'tx-restore') c", Long.class);
    }
}
