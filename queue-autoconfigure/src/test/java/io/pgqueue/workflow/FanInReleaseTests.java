package io.pgqueue.workflow;

import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.listener.JobContext;
import io.pgqueue.model.WorkflowState;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fan-in's parents that finish together do not wait for each other on their child's row: a parent whose child
 * another transaction holds leaves its count beside it and commits, and the count is folded once it committed
 * (or by maintenance). The child is released exactly once, after its last parent, whoever folds.
 */
@ExtendWith(OutputCaptureExtension.class)
class FanInReleaseTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FanInReleaseTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withBean(Handlers.class);

    private final Jobs jobs = new Jobs(database.dataSource());

    static class Handlers {

        /** Runs of each join, by payload. */
        final Map<String, AtomicInteger> joins = new ConcurrentHashMap<>();

        /** How many parent outputs each join saw, by payload. */
        final Map<String, Integer> parentsSeen = new ConcurrentHashMap<>();

        /** The sum of the parent outputs each join saw, by payload. */
        final Map<String, Integer> outputsSum = new ConcurrentHashMap<>();

        final CountDownLatch joined = new CountDownLatch(1);

        @QueueListener(queue = "fan-parent-lease", concurrency = "8", batchSize = "4")
        int leaseParent(Integer index) {
            return index;
        }

        @QueueListener(queue = "fan-parent-tx", mode = "TRANSACTIONAL", concurrency = "8", batchSize = "4")
        int transactionalParent(Integer index) {
            return index;
        }

        /** One job per transaction: the success of a node alone has statements of its own. */
        @QueueListener(queue = "fan-parent-tx-one", mode = "TRANSACTIONAL", concurrency = "8", batchSize = "1")
        int transactionalParentAlone(Integer index) {
            return index;
        }

        @QueueListener(queue = "fan-join", mode = "TRANSACTIONAL")
        void join(String name, JobContext context) {
            joins.computeIfAbsent(name, (key) -> new AtomicInteger()).incrementAndGet();
            Map<String, Integer> outputs = context.parentOutputs(Integer.class);
            parentsSeen.put(name, outputs.size());
            outputsSum.put(name, outputs.values().stream().mapToInt(Integer::intValue).sum());
            joined.countDown();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "fan-parent-lease", "fan-parent-tx", "fan-parent-tx-one" })
    void parentsFinishingTogetherReleaseTheirChildOnceAfterTheLast(String parentQueue) {
        runner.run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            int parents = 400;
            Workflow.Builder builder = Workflow.builder("fan-in");
            WorkflowNode join = WorkflowNode.of("join", "fan-join", parentQueue);
            for (int i = 0; i < parents; i++) {
                builder.node(WorkflowNode.of("p" + i, parentQueue, i));
                join = join.after("p" + i);
            }
            long workflow = operations(context).submit(builder.node(join).build()).id();

            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(60))
                .until(() -> admin.workflow(workflow).orElseThrow().state() == WorkflowState.COMPLETED);
            assertThat(handlers.joins.get(parentQueue)).hasValue(1);
            assertThat(handlers.parentsSeen.get(parentQueue)).isEqualTo(parents);
            // each parent's own output, whether it succeeded alone in its transaction or with others
            assertThat(handlers.outputsSum.get(parentQueue)).isEqualTo(parents * (parents - 1) / 2);
            assertNothingLeftBehind(admin);
        });
    }

    @Test
    void foldsOfTheNodeAndOfMaintenanceNeverDeadlock(CapturedOutput output) {
        runner.withPropertyValues("pgqueue.maintenance.interval=10ms").run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            int parents = 3_000;
            Workflow.Builder builder = Workflow.builder("raced");
            java.util.List<String> names = new java.util.ArrayList<>();
            for (int i = 0; i < parents; i++) {
                builder.node(WorkflowNode.of("p" + i, "fan-parent-tx", i));
                names.add("p" + i);
            }
            long workflow = operations(context)
                .submit(builder.node(WorkflowNode.of("join", "fan-join", "raced").after(names)).build()).id();

            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(90))
                .until(() -> admin.workflow(workflow).orElseThrow().state() == WorkflowState.COMPLETED);
            assertThat(handlers.joins.get("raced")).hasValue(1);
            assertThat(handlers.parentsSeen.get("raced")).isEqualTo(parents);
            assertThat(output).doesNotContain("deadlock detected").doesNotContain("Could not fold");
            assertNothingLeftBehind(admin);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = { "fan-parent-lease", "fan-parent-tx", "fan-parent-tx-one" })
    void aParentDoesNotWaitForAChildAnotherTransactionHolds(String parentQueue) throws Exception {
        runner.withPropertyValues("pgqueue.listener.auto-startup=false").run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            long workflow = operations(context).submit(Workflow.builder("held")
                .node(WorkflowNode.of("a", parentQueue, 1))
                .node(WorkflowNode.of("b", parentQueue, 2))
                .node(WorkflowNode.of("join", "fan-join", "held " + parentQueue).after("a", "b"))
                .build()).id();
            long child = jobs.jdbc().queryForObject("SELECT job_id FROM pgqueue.workflow_node "
                    + "WHERE workflow_id = ? AND name = 'join'", Long.class, workflow);

            try (Connection holder = database.dataSource().getConnection()) {
                holder.setAutoCommit(false);
                holder.createStatement().execute("SELECT 1 FROM pgqueue.job WHERE id = " + child + " FOR UPDATE");
                startListeners(context);
                // both parents commit while the child's row is held: their counts wait beside it
                await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count(parentQueue) == 0);
                assertThat(jobs.jdbc().queryForObject("SELECT coalesce(sum(satisfied), 0) FROM "
                        + "pgqueue.job_dependency_done WHERE child_id = ?", Long.class, child)).isEqualTo(2);
                assertThat(jobs.row(child).get("state")).isEqualTo("waiting");
                holder.commit();
            }
            // folded by the parents' node once the holder let go
            assertThat(handlers.joined.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(handlers.joins.get("held " + parentQueue)).hasValue(1);
            assertThat(handlers.parentsSeen.get("held " + parentQueue)).isEqualTo(2);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(10))
                .until(() -> admin.workflow(workflow).orElseThrow().state() == WorkflowState.COMPLETED);
            assertNothingLeftBehind(admin);
        });
    }

    @Test
    void countsLeftByANodeThatStoppedBeforeFoldingThemAreFoldedByMaintenance() {
        runner.withPropertyValues("pgqueue.listener.auto-startup=false").run((context) -> {
            Handlers handlers = context.getBean(Handlers.class);
            long workflow = operations(context).submit(Workflow.builder("stopped")
                .node(WorkflowNode.of("a", "fan-parent-lease", 1))
                .node(WorkflowNode.of("join", "fan-join", "stopped").after("a"))
                .build()).id();
            long parent = jobs.jdbc().queryForObject("SELECT job_id FROM pgqueue.workflow_node "
                    + "WHERE workflow_id = ? AND name = 'a'", Long.class, workflow);
            long child = jobs.jdbc().queryForObject("SELECT job_id FROM pgqueue.workflow_node "
                    + "WHERE workflow_id = ? AND name = 'join'", Long.class, workflow);
            // what a node that stopped between its commit and its fold leaves: the parent's count beside its child
            jobs.jdbc().update("""
                    WITH consumed AS (DELETE FROM pgqueue.job_dependency WHERE parent_id = ? RETURNING child_id)
                    INSERT INTO pgqueue.job_dependency_done (child_id, satisfied)
                    SELECT child_id, count(*) FROM consumed GROUP BY child_id""", parent);
            assertThat(jobs.row(child).get("state")).isEqualTo("waiting");

            // a backstop looked at every tenth pass: within ten passes, whichever this context's own timer ran
            QueueMaintenance maintenance = context.getBean(QueueMaintenance.class);
            for (int pass = 0; pass < 10 && "waiting".equals(jobs.row(child).get("state")); pass++) {
                maintenance.runOnce();
            }

            assertThat(jobs.row(child).get("state")).isEqualTo("ready");
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job_dependency_done", Long.class))
                .isZero();
            startListeners(context);
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.joins.containsKey("stopped"));
        });
    }

    private void assertNothingLeftBehind(QueueAdmin admin) {
        WorkflowTests.assertNothingLeftBehind(jobs, admin);
    }

    private static void startListeners(ApplicationContext context) {
        context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).getListenerContainers()
            .forEach(io.pgqueue.listener.QueueListenerContainer::start);
    }

    private static WorkflowOperations operations(ApplicationContext context) {
        return context.getBean(WorkflowOperations.class);
    }
}
