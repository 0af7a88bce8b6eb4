package io.pgqueue.workflow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.model.WorkflowCounts;
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
 * A node with ten thousand children releases (or cancels) them in one statement that stays linear in their number
 * whatever plan the server chose for it. A queue's job table is often nearly empty when its statistics are taken
 * (its last backlog drained), so PostgreSQL estimates a job or two where a fan-out has just submitted ten
 * thousand, and a prepared statement keeps the plan made from that (a generic plan, after its fifth execution).
 * Joins of the children with their counts were then run as nested loops comparing every child with every count:
 * 15–20 s for one fan-out, so a server with a statement timeout (common in production) cancelled the root's
 * commit on every attempt and its children never ran. Here each test starts from a drained table's statistics,
 * and the connections use the generic plan from the first execution and a 5 s statement timeout.
 */
@ExtendWith(OutputCaptureExtension.class)
class WideReleaseTests {

    private static final int CHILDREN = 10_000;

    private static final TestDatabase database = TestPostgres.createDatabase(WideReleaseTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("spring.datasource.url=" + genericPlansUnderATimeout(database.jdbcUrl()),
                "spring.datasource.hikari.maximum-pool-size=20")
        .withBean(Handlers.class);

    private final Jobs jobs = new Jobs(database.dataSource());

    static class Handlers {

        @QueueListener(queue = "wide-root-lease")
        int leaseRoot(Integer value) {
            return value;
        }

        @QueueListener(queue = "wide-root-tx", mode = "TRANSACTIONAL")
        int transactionalRoot(Integer value) {
            return value;
        }

        /** Several jobs per transaction: their success has statements of its own. */
        @QueueListener(queue = "wide-root-tx-batch", mode = "TRANSACTIONAL", batchSize = "4")
        int transactionalRootInABatch(Integer value) {
            return value;
        }

        @QueueListener(queue = "wide-root-failing", maxAttempts = "1")
        void failingRoot(Integer value) {
            throw new IllegalStateException("root fails");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "wide-root-lease", "wide-root-tx", "wide-root-tx-batch" })
    void aRootReleasesTenThousandChildrenOnAGenericPlan(String rootQueue, CapturedOutput output) {
        aRootReleasesTenThousandChildren(runner, rootQueue, output);
    }

    /** The same on a server that plans every join as a nested loop (see the dead root's below). */
    @ParameterizedTest
    @ValueSource(strings = { "wide-root-lease", "wide-root-tx", "wide-root-tx-batch" })
    void aRootReleasesTenThousandChildrenWhenEveryJoinIsANestedLoop(String rootQueue, CapturedOutput output) {
        aRootReleasesTenThousandChildren(nestedLoopsOnly(), rootQueue, output);
    }

    private void aRootReleasesTenThousandChildren(ApplicationContextRunner runner, String rootQueue,
            CapturedOutput output) {
        runner.run((context) -> {
            startFromADrainedTablesStatistics();
            // the children's queue has no listener: released, they stay ready
            WorkflowCounts counts = countsOnceNoneWaits(context, submitFanOut(context, rootQueue));
            assertThat(counts.completed()).isEqualTo(1);
            assertThat(counts.active()).isEqualTo(CHILDREN);
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ? "
                    + "AND state = 'ready' AND pending_parents = 0", Long.class, rootQueue + "-child"))
                .isEqualTo(CHILDREN);
            assertThat(output).doesNotContain("statement timeout");
        });
    }

    @Test
    void aDeadRootCancelsTenThousandChildrenOnAGenericPlan(CapturedOutput output) {
        runner.run((context) -> {
            startFromADrainedTablesStatistics();
            long workflow = submitFanOut(context, "wide-root-failing");
            WorkflowCounts counts = countsOnceNoneWaits(context, workflow);
            assertThat(counts.dead()).isEqualTo(1);
            assertThat(counts.cancelled()).isEqualTo(CHILDREN);
            assertThat(jobs.count("wide-root-failing-child")).isZero();
            assertThat(context.getBean(QueueAdmin.class).workflow(workflow).orElseThrow().state())
                .isEqualTo(WorkflowState.FAILED);
            assertThat(output).doesNotContain("statement timeout");
        });
    }

    /**
     * The same dead root on a server that plans every join as a nested loop (as it does when it estimates a row or
     * two on each side, whichever table's statistics it took them from): the cancellation still takes each child
     * once. Before, four steps joined two sets of the fan-out's size, 10,000 x 10,000 comparisons each: the
     * submission (two arrays joined on their ordinality: 2.7 s), and in the root's failure record the edges with the
     * doomed nodes, the consumed edges with their parents' outcomes and the cancelled children with their causes —
     * past the 5 s statement timeout on every attempt, with the node's heartbeats timing out behind it.
     */
    @Test
    void aDeadRootCancelsTenThousandChildrenWhenEveryJoinIsANestedLoop(CapturedOutput output) {
        nestedLoopsOnly().run((context) -> {
            startFromADrainedTablesStatistics();
            long workflow = submitFanOut(context, "wide-root-failing");
            WorkflowCounts counts = countsOnceNoneWaits(context, workflow);
            assertThat(counts.dead()).isEqualTo(1);
            assertThat(counts.cancelled()).isEqualTo(CHILDREN);
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.workflow_node WHERE workflow_id = ? "
                    + "AND state = 'cancelled' AND error = 'parent root ended dead'", Long.class, workflow))
                .isEqualTo(CHILDREN);
            assertThat(output).doesNotContain("statement timeout");
        });
    }

    /** The runner on connections whose server plans a join as a nested loop whenever it can. */
    private ApplicationContextRunner nestedLoopsOnly() {
        return runner.withPropertyValues("spring.datasource.url=" + genericPlansUnderATimeout(database.jdbcUrl())
                + "%20-c%20enable_hashjoin=off%20-c%20enable_mergejoin=off");
    }

    /**
     * What the job table's statistics say after a backlog drained: taken while twenty thousand jobs were ready and
     * none waited, then the jobs finished; autovacuum is kept from analyzing again during the test. The jobs an
     * earlier test left (released children no listener takes) go first.
     */
    private void startFromADrainedTablesStatistics() {
        jobs.jdbc().execute("ALTER TABLE pgqueue.job SET (autovacuum_enabled = false)");
        jobs.jdbc().update("DELETE FROM pgqueue.job");
        jobs.jdbc().update("INSERT INTO pgqueue.job (queue, state, payload) "
                + "SELECT 'wide-drained', 'ready', jsonb_build_object('n', g) FROM generate_series(1, 20000) g");
        jobs.jdbc().execute("VACUUM ANALYZE pgqueue.job");
        jobs.jdbc().update("DELETE FROM pgqueue.job WHERE queue = 'wide-drained'");
    }

    private static WorkflowCounts countsOnceNoneWaits(ApplicationContext context, long workflow) {
        QueueAdmin admin = context.getBean(QueueAdmin.class);
        await().atMost(Duration.ofSeconds(90))
            .until(() -> admin.workflow(workflow).orElseThrow().counts().waiting() == 0);
        return admin.workflow(workflow).orElseThrow().counts();
    }

    private static long submitFanOut(ApplicationContext context, String rootQueue) {
        Workflow.Builder builder = Workflow.builder("wide").node(WorkflowNode.of("root", rootQueue, 7));
        List<WorkflowNode> children = new ArrayList<>();
        for (int i = 0; i < CHILDREN; i++) {
            children.add(WorkflowNode.of("c" + i, rootQueue + "-child", i).after("root"));
        }
        children.forEach(builder::node);
        return context.getBean(WorkflowOperations.class).submit(builder.build()).id();
    }

    /**
     * The test database's URL with every statement prepared on the server at once and planned generically, as
     * the driver and the server do after a statement's fifth execution, and a statement timeout.
     */
    private static String genericPlansUnderATimeout(String jdbcUrl) {
        return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "prepareThreshold=1"
                + "&options=-c%20plan_cache_mode=force_generic_plan%20-c%20statement_timeout=5s";
    }
}
