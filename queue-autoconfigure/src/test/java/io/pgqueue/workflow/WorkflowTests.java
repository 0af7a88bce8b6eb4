package io.pgqueue.workflow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.listener.JobContext;
import io.pgqueue.model.JobState;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.model.WorkflowState;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Workflows on a real PostgreSQL: dependants wait until every parent finished and start in the parent's
 * transaction, outputs are handed on, failure policies cascade, nodes are added at run time, and a workflow is
 * submitted, looked up and cancelled as a whole.
 */
class WorkflowTests {

    private static final TestDatabase database = TestPostgres.createDatabase(WorkflowTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.backoff.initial=1h", "pgqueue.listener.backoff.max=2h");

    private final Jobs jobs = new Jobs(database.dataSource());

    /** An order: charge (LEASE) and reserve (TRANSACTIONAL) in parallel, then ship, then notify. */
    static class OrderHandlers {

        final Queue<String> events = new ConcurrentLinkedQueue<>();

        final Map<String, Object> seen = new ConcurrentHashMap<>();

        @QueueListener(queue = "wf-charge")
        String charge(String order, JobContext context) {
            events.add("charge");
            return "receipt-of-" + order;
        }

        @QueueListener(queue = "wf-reserve", mode = "TRANSACTIONAL")
        String reserve(String order) {
            events.add("reserve");
            return "slot-7";
        }

        @QueueListener(queue = "wf-ship", mode = "TRANSACTIONAL")
        String ship(String order, JobContext context) {
            events.add("ship");
            seen.put("receipt", context.parentOutput("charge", String.class).orElseThrow());
            seen.put("all", context.parentOutputs(String.class));
            seen.put("node", context.workflow().node());
            return "parcel-1";
        }

        @QueueListener(queue = "wf-notify")
        void notifyCustomer(String order, JobContext context) {
            events.add("notify");
            seen.put("parcel", context.parentOutput("ship", String.class).orElseThrow());
        }
    }

    @Test
    void anOrderRunsEachNodeAfterItsParentsAndHandsOutputsOn() {
        OrderHandlers handlers = new OrderHandlers();
        runner.withBean(OrderHandlers.class, () -> handlers).run((context) -> {
            WorkflowSubmission submitted = operations(context).submit(Workflow.builder("order-42")
                .node(WorkflowNode.of("charge", "wf-charge", "42"))
                .node(WorkflowNode.of("reserve", "wf-reserve", "42"))
                .node(WorkflowNode.of("ship", "wf-ship", "42").after("charge", "reserve"))
                .node(WorkflowNode.of("notify", "wf-notify", "42").after("ship"))
                .build());
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(20))
                .until(() -> admin.workflow(submitted.id()).orElseThrow().state() == WorkflowState.COMPLETED);
            List<String> order = new ArrayList<>(handlers.events);
            assertThat(order).hasSize(4);
            assertThat(order.subList(0, 2)).containsExactlyInAnyOrder("charge", "reserve");
            assertThat(order.subList(2, 4)).containsExactly("ship", "notify");
            assertThat(handlers.seen).containsEntry("receipt", "receipt-of-42")
                .containsEntry("all", Map.of("charge", "receipt-of-42", "reserve", "slot-7"))
                .containsEntry("node", "ship")
                .containsEntry("parcel", "parcel-1");
            WorkflowInfo info = admin.workflow(submitted.id()).orElseThrow();
            assertThat(info.counts().completed()).isEqualTo(4);
            assertThat(info.counts().total()).isEqualTo(4);
            assertThat(info.name()).isEqualTo("order-42");
            List<WorkflowNodeInfo> nodes = admin.workflowNodes(submitted.id(), 0, 100);
            assertThat(nodes).extracting(WorkflowNodeInfo::name).containsExactly("charge", "reserve", "ship", "notify");
            assertThat(nodes).allSatisfy((node) -> assertThat(node.state()).isEqualTo(JobState.COMPLETED));
            assertThat(nodes.get(2).parents()).containsExactly("charge", "reserve");
            assertNothingLeftBehind(admin);
        });
    }

    @Test
    void aSubmissionJoinsTheCallersTransaction() {
        runner.run((context) -> {
            TransactionTemplate transaction = new TransactionTemplate(
                    new DataSourceTransactionManager(context.getBean(javax.sql.DataSource.class)));
            long before = jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.workflow", Long.class);
            transaction.executeWithoutResult((status) -> {
                operations(context).submit(Workflow.builder("rolled-back")
                    .node(WorkflowNode.of("a", "wf-nobody", "x"))
                    .node(WorkflowNode.of("b", "wf-nobody", "x").after("a"))
                    .build());
                status.setRollbackOnly();
            });
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.workflow", Long.class)).isEqualTo(before);
            assertThat(jobs.count("wf-nobody")).isZero();
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job_dependency", Long.class)).isZero();
        });
    }

    @Test
    void badGraphsAreRefusedWithTheirCauseAndStoreNothing() {
        assertThatExceptionOfType(InvalidWorkflowException.class).isThrownBy(() -> Workflow.builder("cyclic")
            .node(WorkflowNode.of("a", "q", "x").after("c"))
            .node(WorkflowNode.of("b", "q", "x").after("a"))
            .node(WorkflowNode.of("c", "q", "x").after("b"))
            .build()).withMessageContaining("has a cycle").withMessageContaining("a -> ").withMessageContaining("b")
            .withMessageContaining("c");
        assertThatExceptionOfType(InvalidWorkflowException.class).isThrownBy(() -> Workflow.builder("unknown")
            .node(WorkflowNode.of("a", "q", "x").after("missing"))
            .build()).withMessageContaining("depends on 'missing', which is not a node of it");
        assertThatExceptionOfType(InvalidWorkflowException.class).isThrownBy(() -> Workflow.builder("twice")
            .node(WorkflowNode.of("a", "q", "x"))
            .node(WorkflowNode.of("a", "q", "y"))
            .build()).withMessageContaining("two nodes named 'a'");
        assertThatExceptionOfType(IllegalArgumentException.class)
            .isThrownBy(() -> WorkflowNode.of("a", "q", "x").options(SendOptions.builder().dedupKey("k").build()))
            .withMessageContaining("dedup key");
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> WorkflowNode.of("a", "q", "x").after("a"))
            .withMessageContaining("cannot depend on itself");
        Workflow.Builder wide = Workflow.builder("too-many-parents");
        String[] parents = new String[Workflow.MAX_PARENTS + 1];
        for (int i = 0; i < parents.length; i++) {
            parents[i] = "p" + i;
            wide.node(WorkflowNode.of(parents[i], "q", i));
        }
        wide.node(WorkflowNode.of("join", "q", "x").after(parents));
        assertThatExceptionOfType(InvalidWorkflowException.class).isThrownBy(wide::build)
            .withMessageContaining("has 100001 parents; at most 100000 are allowed");
        assertThatExceptionOfType(InvalidWorkflowException.class).isThrownBy(() -> Workflow.builder("empty").build())
            .withMessageContaining("has no node");
    }

    /** A parent that dies at once, and children that record whether they ran and which parents failed. */
    static class FailingParent {

        final Map<String, List<String>> ran = new ConcurrentHashMap<>();

        final AtomicInteger attempts = new AtomicInteger();

        volatile boolean heal;

        @QueueListener(queue = "wf-flaky")
        String flaky(String payload) {
            attempts.incrementAndGet();
            if (!heal) {
                throw new IllegalStateException("card declined");
            }
            return "healed";
        }

        @QueueListener(queue = "wf-child", mode = "TRANSACTIONAL")
        void child(String name, JobContext context) {
            ran.put(name, context.workflow().failedParents());
        }

        /** As {@link #flaky}, in the handler's transaction: the failure is recorded after its rollback. */
        @QueueListener(queue = "wf-flaky-tx", mode = "TRANSACTIONAL")
        String flakyInTransaction(String payload) {
            return flaky(payload);
        }
    }

    @Test
    void aFinishedWorkflowHasItsFinishTimeBeforeAnyMaintenancePass() {
        FailingParent handlers = new FailingParent();
        // no maintenance pass stores the workflow's state or its finish while the test reads it
        runner.withPropertyValues("pgqueue.maintenance.interval=1h").withBean(FailingParent.class, () -> handlers)
            .run((context) -> {
                WorkflowSubmission submitted = operations(context).submit(Workflow.builder("finish-time")
                    .node(WorkflowNode.of("a", "wf-child", "finish-a"))
                    .node(WorkflowNode.of("b", "wf-child", "finish-b").after("a"))
                    .build());
                QueueAdmin admin = context.getBean(QueueAdmin.class);
                await().atMost(Duration.ofSeconds(20))
                    .until(() -> admin.workflow(submitted.id()).orElseThrow().state() == WorkflowState.COMPLETED);
                WorkflowInfo finished = admin.workflow(submitted.id()).orElseThrow();
                assertThat(finished.finishedAt()).isNotNull().isAfterOrEqualTo(finished.createdAt());
                assertThat(admin.workflows(new WorkflowQuery("finish-time", null, null, 10)))
                    .extracting(WorkflowInfo::finishedAt).containsExactly(finished.finishedAt());
                // the pass that stores it stores the same time
                context.getBean(QueueMaintenance.class).runOnce();
                assertThat(admin.workflow(submitted.id()).orElseThrow().finishedAt()).isEqualTo(finished.finishedAt());
            });
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(DependencyPolicy.class)
    void aFailureInTheMiddleOfAChainFollowsThePolicy(DependencyPolicy policy) {
        FailingParent handlers = new FailingParent();
        runner.withBean(FailingParent.class, () -> handlers).run((context) -> {
            WorkflowSubmission submitted = operations(context).submit(Workflow.builder("middle-" + policy)
                .defaultPolicy(policy)
                .node(WorkflowNode.of("a", "wf-child", "a-" + policy))
                .node(WorkflowNode.of("b", "wf-flaky-tx", "b").after("a")
                    .options(SendOptions.builder().maxAttempts(1).build()))
                .node(WorkflowNode.of("c", "wf-child", "c-" + policy).after("b"))
                .node(WorkflowNode.of("d", "wf-child", "d-" + policy).after("c"))
                .build());
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            long b = submitted.jobId("b");
            await().atMost(Duration.ofSeconds(20)).until(() -> "dead".equals(jobs.row(b).get("state")));
            switch (policy) {
                case CANCEL -> {
                    await().atMost(Duration.ofSeconds(10))
                        .until(() -> admin.workflow(submitted.id()).orElseThrow().counts().cancelled() == 2);
                    assertThat(handlers.ran).containsOnlyKeys("a-CANCEL");
                }
                case RUN -> {
                    await().atMost(Duration.ofSeconds(10)).until(() -> handlers.ran.containsKey("d-RUN"));
                    assertThat(handlers.ran.get("c-RUN")).containsExactly("b");
                    assertThat(handlers.ran.get("d-RUN")).isEmpty();
                }
                case HOLD -> {
                    assertThat(admin.workflow(submitted.id()).orElseThrow().counts().waiting()).isEqualTo(2);
                    assertThat(handlers.ran).containsOnlyKeys("a-HOLD");
                    handlers.heal = true;
                    assertThat(admin.retryDead("wf-flaky-tx", List.of(b))).isEqualTo(1);
                    await().atMost(Duration.ofSeconds(20)).until(() -> handlers.ran.containsKey("d-HOLD"));
                    await().atMost(Duration.ofSeconds(5)).until(
                            () -> admin.workflow(submitted.id()).orElseThrow().state() == WorkflowState.COMPLETED);
                }
            }
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job_dependency d JOIN pgqueue.workflow_node n "
                    + "ON n.job_id = d.child_id WHERE n.workflow_id = ?", Long.class, submitted.id()))
                .isZero();
            assertThat(admin.reconcile()).isEmpty();
        });
    }

    private static WorkflowNode flaky(String name) {
        return WorkflowNode.of(name, "wf-flaky", name).options(SendOptions.builder().maxAttempts(1).build());
    }

    @Test
    void aDeadParentCancelsItsDependantsTransitivelyUnderCancelAndRecordsTheCause() {
        FailingParent handlers = new FailingParent();
        runner.withBean(FailingParent.class, () -> handlers).run((context) -> {
            WorkflowSubmission submitted = operations(context).submit(Workflow.builder("cancel-policy")
                .node(flaky("pay"))
                .node(WorkflowNode.of("other", "wf-child", "other"))
                .node(WorkflowNode.of("ship", "wf-child", "ship").after("pay", "other"))
                .node(WorkflowNode.of("invoice", "wf-child", "invoice").after("ship"))
                .build());
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> admin.workflow(submitted.id()).orElseThrow().counts()
                .cancelled() == 2);
            WorkflowInfo info = admin.workflow(submitted.id()).orElseThrow();
            assertThat(info.counts()).satisfies((counts) -> {
                assertThat(counts.dead()).isEqualTo(1);
                assertThat(counts.waiting()).isZero();
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> handlers.ran.containsKey("other"));
            assertThat(admin.workflow(submitted.id()).orElseThrow().state()).isEqualTo(WorkflowState.FAILED);
            assertThat(handlers.ran).containsOnlyKeys("other");
            Map<String, WorkflowNodeInfo> nodes = byName(admin.workflowNodes(submitted.id(), 0, 10));
            assertThat(nodes.get("pay").state()).isEqualTo(JobState.DEAD);
            assertThat(nodes.get("pay").error()).contains("card declined");
            assertThat(nodes.get("ship").state()).isEqualTo(JobState.CANCELLED);
            assertThat(nodes.get("ship").error()).isEqualTo("parent pay ended dead");
            assertThat(nodes.get("invoice").state()).isEqualTo(JobState.CANCELLED);
            // its own parent is ship, cancelled because pay ended dead
            assertThat(nodes.get("invoice").error()).isEqualTo("parent ship was cancelled: pay ended dead");
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job_dependency", Long.class)).isZero();
            assertThat(admin.reconcile()).isEmpty();
        });
    }

    @Test
    void underRunADependantRunsAndSeesWhichParentFailed() {
        FailingParent handlers = new FailingParent();
        runner.withBean(FailingParent.class, () -> handlers).run((context) -> {
            WorkflowSubmission submitted = operations(context).submit(Workflow.builder("run-policy")
                .defaultPolicy(DependencyPolicy.RUN)
                .node(flaky("check"))
                .node(WorkflowNode.of("decide", "wf-child", "decide").after("check"))
                .build());
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.ran.containsKey("decide"));
            assertThat(handlers.ran.get("decide")).containsExactly("check");
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> admin.workflow(submitted.id()).orElseThrow().counts()
                .completed() == 1);
            assertThat(admin.workflow(submitted.id()).orElseThrow().counts().dead()).isEqualTo(1);
        });
    }

    @Test
    void underHoldADependantWaitsForTheDeadParentUntilItIsRetriedAndSucceeds() {
        FailingParent handlers = new FailingParent();
        runner.withBean(FailingParent.class, () -> handlers).run((context) -> {
            WorkflowSubmission submitted = operations(context).submit(Workflow.builder("hold-policy")
                .node(flaky("import"))
                .node(WorkflowNode.of("report", "wf-child", "report").after("import", DependencyPolicy.HOLD))
                .build());
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            long parent = submitted.jobId("import");
            await().atMost(Duration.ofSeconds(20)).until(() -> "dead".equals(jobs.row(parent).get("state")));
            assertThat(jobs.row(submitted.jobId("report")).get("state")).isEqualTo("waiting");
            WorkflowInfo held = admin.workflow(submitted.id()).orElseThrow();
            assertThat(held.state()).isEqualTo(WorkflowState.FAILED);
            assertThat(held.counts().waiting()).isEqualTo(1);
            handlers.heal = true;
            assertThat(admin.retryDead("wf-flaky", List.of(parent))).isEqualTo(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.ran.containsKey("report"));
            assertThat(handlers.ran.get("report")).isEmpty();
            await().atMost(Duration.ofSeconds(5))
                .until(() -> admin.workflow(submitted.id()).orElseThrow().state() == WorkflowState.COMPLETED);
            assertNothingLeftBehind(admin);
        });
    }

    /** A splitter that adds chunks and a merge at run time; its first attempt fails after adding them. */
    static class FanOut {

        static final int CHUNKS = 300;

        final AtomicInteger splits = new AtomicInteger();

        final AtomicInteger chunks = new AtomicInteger();

        final CountDownLatch merged = new CountDownLatch(1);

        volatile Map<String, Integer> mergedOutputs = Map.of();

        @QueueListener(queue = "wf-split", maxAttempts = "3")
        void split(String file, JobContext context) {
            List<WorkflowNode> nodes = new ArrayList<>();
            WorkflowNode merge = WorkflowNode.of("merge", "wf-merge", file);
            for (int i = 0; i < CHUNKS; i++) {
                nodes.add(WorkflowNode.of("chunk-" + i, "wf-chunk", i).after("split"));
                merge = merge.after("chunk-" + i);
            }
            nodes.add(merge);
            context.workflow().add(nodes);
            if (splits.incrementAndGet() == 1) {
                throw new IllegalStateException("lost after adding: the retry must not add the chunks twice");
            }
        }

        @QueueListener(queue = "wf-chunk", concurrency = "4")
        int chunk(Integer index) {
            chunks.incrementAndGet();
            return index * 2;
        }

        @QueueListener(queue = "wf-merge", mode = "TRANSACTIONAL")
        void merge(String file, JobContext context) {
            mergedOutputs = context.parentOutputs(Integer.class);
            merged.countDown();
        }
    }

    @Test
    void aRunningNodeFansOutAndAJoinReadsEveryOutputAndARetryAddsNothingTwice() throws Exception {
        FanOut handlers = new FanOut();
        runner.withPropertyValues("pgqueue.listener.backoff.initial=20ms", "pgqueue.listener.backoff.max=40ms")
            .withBean(FanOut.class, () -> handlers)
            .run((context) -> {
                WorkflowSubmission submitted = operations(context)
                    .submit(Workflow.builder("fan-out").node(WorkflowNode.of("split", "wf-split", "file.csv")).build());
                assertThat(handlers.merged.await(60, TimeUnit.SECONDS)).isTrue();
                assertThat(handlers.splits.get()).isEqualTo(2);
                assertThat(handlers.chunks.get()).isEqualTo(FanOut.CHUNKS);
                assertThat(handlers.mergedOutputs).hasSize(FanOut.CHUNKS).containsEntry("chunk-7", 14);
                QueueAdmin admin = context.getBean(QueueAdmin.class);
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> admin.workflow(submitted.id()).orElseThrow().state() == WorkflowState.COMPLETED);
                assertThat(admin.workflow(submitted.id()).orElseThrow().counts().completed()).isEqualTo(FanOut.CHUNKS + 2);
                assertNothingLeftBehind(admin);
            });
    }

    @Test
    void cancellingAWorkflowCancelsEveryPendingNodeAndListingFindsItByState() {
        runner.run((context) -> {
            WorkflowSubmission submitted = operations(context).submit(Workflow.builder("to-cancel")
                .defaultPolicy(DependencyPolicy.RUN)
                .node(WorkflowNode.of("a", "wf-idle", "a"))
                .node(WorkflowNode.of("b", "wf-idle", "b").after("a"))
                .node(WorkflowNode.of("c", "wf-idle", "c").after("b"))
                .build());
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThat(admin.cancelWorkflow(submitted.id()).cancelled()).isEqualTo(3);
            WorkflowInfo info = admin.workflow(submitted.id()).orElseThrow();
            assertThat(info.state()).isEqualTo(WorkflowState.CANCELLED);
            assertThat(info.counts().cancelled()).isEqualTo(3);
            assertThat(jobs.count("wf-idle")).isZero();
            context.getBean(io.pgqueue.internal.maintenance.QueueMaintenance.class).runOnce();
            assertThat(admin.workflows(new WorkflowQuery("to-cancel", WorkflowState.CANCELLED, null, 10)))
                .extracting(WorkflowInfo::id).containsExactly(submitted.id());
            assertThat(admin.workflows(new WorkflowQuery("to-cancel", WorkflowState.RUNNING, null, 10))).isEmpty();
            assertNothingLeftBehind(admin);
        });
    }

    /** A LEASE node that runs until told, ignoring its cancellation, then returns as if it had succeeded. */
    static class Stubborn {

        final CountDownLatch running = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @QueueListener(queue = "wf-stubborn")
        void run(String payload) throws InterruptedException {
            running.countDown();
            while (!release.await(10, TimeUnit.MILLISECONDS)) {
                Thread.interrupted();
            }
        }
    }

    @Test
    void aRunningNodeCancelledWithItsWorkflowFinishesAsCancelledAndCancelsItsDependants() {
        Stubborn handler = new Stubborn();
        runner.withBean(Stubborn.class, () -> handler).run((context) -> {
            WorkflowSubmission submitted = operations(context).submit(Workflow.builder("stubborn")
                .node(WorkflowNode.of("long", "wf-stubborn", "x"))
                .node(WorkflowNode.of("after", "wf-idle", "y").after("long", DependencyPolicy.RUN))
                .build());
            assertThat(handler.running.await(20, TimeUnit.SECONDS)).isTrue();
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThat(admin.cancelWorkflow(submitted.id()).cancelRequested()).isEqualTo(1);
            handler.release.countDown();
            await().atMost(Duration.ofSeconds(10))
                .until(() -> admin.workflow(submitted.id()).orElseThrow().state() == WorkflowState.CANCELLED);
            // its success did not count: it ended cancelled, and its dependant (waiting first) was cancelled too
            Map<String, WorkflowNodeInfo> nodes = byName(admin.workflowNodes(submitted.id(), 0, 10));
            assertThat(nodes.get("long").state()).isEqualTo(JobState.CANCELLED);
            assertThat(nodes.get("after").state()).isEqualTo(JobState.CANCELLED);
            assertNothingLeftBehind(admin);
        });
    }

    private void assertNothingLeftBehind(QueueAdmin admin) {
        assertNothingLeftBehind(jobs, admin);
    }

    /** No node waits, no edge or count is left, and the counters equal the rows. */
    static void assertNothingLeftBehind(Jobs jobs, QueueAdmin admin) {
        assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job WHERE state = 'waiting'", Long.class))
            .isZero();
        assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job_dependency", Long.class)).isZero();
        assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job_dependency_done", Long.class))
            .isZero();
        assertThat(admin.reconcile()).isEmpty();
    }

    private static Map<String, WorkflowNodeInfo> byName(List<WorkflowNodeInfo> nodes) {
        Map<String, WorkflowNodeInfo> byName = new java.util.HashMap<>();
        nodes.forEach((node) -> byName.put(node.name(), node));
        return byName;
    }

    private static WorkflowOperations operations(ApplicationContext context) {
        return context.getBean(WorkflowOperations.class);
    }
}
