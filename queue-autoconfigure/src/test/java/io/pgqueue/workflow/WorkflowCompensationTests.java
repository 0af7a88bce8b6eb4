package io.pgqueue.workflow;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowState;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Compensation for workflows (sagas) on real PostgreSQL: when a workflow fails for good, the compensations of its
 * completed nodes run in reverse dependency order, each once; the workflow shows its compensation as compensated
 * or compensation-failed.
 */
class WorkflowCompensationTests {

    private static final TestDatabase database = TestPostgres.createDatabase(WorkflowCompensationTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.maintenance.interval=200ms", "pgqueue.queues.saga-ship.max-attempts=1",
                "pgqueue.queues.saga-undo.max-attempts=1");

    static class Saga {

        final Queue<String> undone = new ConcurrentLinkedQueue<>();

        final CountDownLatch shipping = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @QueueListener(queue = "saga-do")
        String step(String what) {
            return "done-" + what;
        }

        @QueueListener(queue = "saga-ship")
        void ship(String order) throws InterruptedException {
            if (order.startsWith("wait")) {
                shipping.countDown();
                assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
                return;
            }
            throw new IllegalStateException("the carrier refused " + order);
        }

        @QueueListener(queue = "saga-undo")
        void undo(String what) {
            undone.add(what);
            if (what.startsWith("broken")) {
                throw new IllegalStateException("cannot undo " + what);
            }
        }
    }

    private static Workflow checkout(String order, String refund) {
        return Workflow.builder("checkout-" + order)
            .node(WorkflowNode.of("charge", "saga-do", "charge").compensate("saga-undo", refund))
            .node(WorkflowNode.of("reserve", "saga-do", "reserve").after("charge")
                .compensate("saga-undo", "release-" + order))
            .node(WorkflowNode.of("log", "saga-do", "log").after("reserve"))
            .node(WorkflowNode.of("ship", "saga-ship", order).after("log"))
            .build();
    }

    @Test
    void aFailedWorkflowsCompletedNodesAreCompensatedInReverseOrderOnce() {
        Saga saga = new Saga();
        runner.withBean(Saga.class, () -> saga).run((context) -> {
            WorkflowSubmission submitted = context.getBean(WorkflowOperations.class)
                .submit(checkout("o1", "refund-o1"));
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> compensation(admin, submitted.id()) != null
                    && "compensated".equals(compensation(admin, submitted.id()).status()));
            // the node that depended on the other is undone first; the node without compensation is skipped
            assertThat(saga.undone).containsExactly("release-o1", "refund-o1");
            WorkflowInfo.Compensation compensation = compensation(admin, submitted.id());
            assertThat(admin.workflowNodes(compensation.workflowId(), 0, 10)).extracting(WorkflowNodeInfo::name)
                .containsExactlyInAnyOrder("charge", "reserve");
            assertThat(admin.workflow(submitted.id()).orElseThrow().state()).isEqualTo(WorkflowState.FAILED);
            // later maintenance passes start nothing again
            int before = saga.undone.size();
            await().pollDelay(Duration.ofMillis(800)).atMost(Duration.ofSeconds(2)).until(() -> true);
            assertThat(saga.undone).hasSize(before);
        });
    }

    @Test
    void theCompensationsStatusIsReadFromItsCountsNotFromTheLastMaintenancePass() {
        Saga saga = new Saga();
        // maintenance passes only when the test runs one: none stores the compensation's state after it finished
        runner.withPropertyValues("pgqueue.maintenance.interval=1h").withBean(Saga.class, () -> saga).run((context) -> {
            WorkflowSubmission submitted = context.getBean(WorkflowOperations.class)
                .submit(checkout("o5", "refund-o5"));
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(20))
                .until(() -> admin.workflow(submitted.id()).orElseThrow().state() == WorkflowState.FAILED);
            context.getBean(QueueMaintenance.class).runOnce();
            WorkflowInfo.Compensation started = compensation(admin, submitted.id());
            assertThat(started).isNotNull();
            await().atMost(Duration.ofSeconds(20))
                .until(() -> admin.workflow(started.workflowId()).orElseThrow().state() == WorkflowState.COMPLETED);
            assertThat(saga.undone).containsExactly("release-o5", "refund-o5");
            assertThat(compensation(admin, submitted.id()).status()).isEqualTo("compensated");
            assertThat(admin.workflows(new WorkflowQuery("checkout-o5", null, null, 10)))
                .extracting((workflow) -> workflow.compensation().status()).containsExactly("compensated");
        });
    }

    @Test
    void aCompensationThatGoesDeadLeavesTheWorkflowCompensationFailed() {
        Saga saga = new Saga();
        runner.withBean(Saga.class, () -> saga).run((context) -> {
            WorkflowSubmission submitted = context.getBean(WorkflowOperations.class)
                .submit(checkout("o2", "broken-refund"));
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> compensation(admin, submitted.id()) != null
                    && "compensation-failed".equals(compensation(admin, submitted.id()).status()));
            assertThat(saga.undone).containsExactly("release-o2", "broken-refund");
        });
    }

    @Test
    void aCancelledWorkflowsCompletedNodesAreCompensated() {
        Saga saga = new Saga();
        runner.withBean(Saga.class, () -> saga).run((context) -> {
            WorkflowSubmission submitted = context.getBean(WorkflowOperations.class)
                .submit(checkout("wait-o3", "refund-o3"));
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThat(saga.shipping.await(20, TimeUnit.SECONDS)).isTrue();
            admin.cancelWorkflow(submitted.id());
            saga.release.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> compensation(admin, submitted.id()) != null
                    && "compensated".equals(compensation(admin, submitted.id()).status()));
            assertThat(saga.undone).containsExactly("release-wait-o3", "refund-o3");
        });
    }

    @Test
    void aWorkflowWithoutCompensationsHasNoneWhenItFails() {
        Saga saga = new Saga();
        runner.withBean(Saga.class, () -> saga).run((context) -> {
            WorkflowSubmission submitted = context.getBean(WorkflowOperations.class).submit(Workflow.builder("plain")
                .node(WorkflowNode.of("charge", "saga-do", "charge"))
                .node(WorkflowNode.of("ship", "saga-ship", "o4").after("charge"))
                .build());
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(20))
                .until(() -> admin.workflow(submitted.id()).orElseThrow().state() == WorkflowState.FAILED);
            await().pollDelay(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2)).until(() -> true);
            assertThat(compensation(admin, submitted.id())).isNull();
            assertThat(saga.undone).isEmpty();
        });
    }

    private static WorkflowInfo.Compensation compensation(QueueAdmin admin, long id) {
        return admin.workflow(id).orElseThrow().compensation();
    }
}
