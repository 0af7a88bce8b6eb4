package io.pgqueue.listener;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchEvent;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jobs that a statement makes ready beside the jobs it finishes — a workflow's dependants, a batch's callbacks —
 * wake listeners the way a send does: this node's containers at once, other nodes by the (debounced) NOTIFY of
 * {@code Wakeups}, and by no NOTIFY at all when notifications are off ({@code pgqueue.listener.notify=false}).
 * The listeners here poll every 30 seconds: only a wake-up starts a dependant or a callback within seconds.
 */
class ReadyFromCascadesTests {

    private static final TestDatabase database = TestPostgres.createDatabase(ReadyFromCascadesTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.listener.poll-interval=30s");

    static class Handlers {

        final CountDownLatch childStarted = new CountDownLatch(1);

        final CountDownLatch callbackStarted = new CountDownLatch(1);

        @QueueListener(queue = "rc-parent")
        String parent(String order) {
            return "charged-" + order;
        }

        @QueueListener(queue = "rc-child", mode = "TRANSACTIONAL")
        void child(String order) {
            childStarted.countDown();
        }

        @QueueListener(queue = "rc-member")
        void member(String row) {
        }

        @QueueListener(queue = "rc-done")
        void done(BatchEvent event) {
            callbackStarted.countDown();
        }
    }

    @Test
    void withNotificationsOffADependantStartsAtOnceOnTheNodeThatReleasedItAndNoNotifyIsSent() {
        Handlers handlers = new Handlers();
        runner.withPropertyValues("pgqueue.listener.notify=false")
            .withBean(Handlers.class, () -> handlers)
            .run((context) -> assertThat(notificationsUntil(handlers.childStarted,
                    () -> submitOrder(context.getBean(WorkflowOperations.class), "o-1")))
                .isEmpty());
    }

    @Test
    void withNotificationsOffABatchCallbackStartsAtOnceOnTheNodeThatFiredIt() {
        Handlers handlers = new Handlers();
        runner.withPropertyValues("pgqueue.listener.notify=false")
            .withBean(Handlers.class, () -> handlers)
            .run((context) -> assertThat(notificationsUntil(handlers.callbackStarted, () -> {
                BatchOperations batches = context.getBean(BatchOperations.class);
                long id = batches.open(Batch.builder("import").onSuccess("rc-done").build());
                batches.addAll(id, "rc-member", List.of("row-1", "row-2"));
                batches.seal(id);
            })).isEmpty());
    }

    @Test
    void withNotificationsOnOtherNodesAreToldOfTheReleasedDependantsQueue() {
        Handlers handlers = new Handlers();
        runner.withBean(Handlers.class, () -> handlers)
            .run((context) -> assertThat(notificationsUntil(handlers.childStarted,
                    () -> submitOrder(context.getBean(WorkflowOperations.class), "o-2")))
                .contains("rc-parent", "rc-child"));
    }

    private static void submitOrder(WorkflowOperations workflows, String order) {
        workflows.submit(Workflow.builder("order")
            .node(WorkflowNode.of("charge", "rc-parent", order))
            .node(WorkflowNode.of("ship", "rc-child", order).after("charge"))
            .build());
    }

    /**
     * Listens to the schema's channel while {@code action} runs and until {@code started} opens (within ten
     * seconds, where the listeners poll every thirty), then returns what arrived.
     */
    private static List<String> notificationsUntil(CountDownLatch started, Runnable action) throws Exception {
        try (Connection listening = database.connect(); Statement statement = listening.createStatement()) {
            statement.execute("LISTEN pgqueue_pgqueue");
            action.run();
            assertThat(started.await(10, TimeUnit.SECONDS)).as("started within 10 s").isTrue();
            return notificationsBeforeMarker(listening);
        }
    }

    /**
     * The notifications that arrived before a marker sent now: every transaction that committed before it has
     * delivered its notifications by the time the marker arrives.
     */
    private static List<String> notificationsBeforeMarker(Connection listening) throws Exception {
        try (Connection other = database.connect(); Statement statement = other.createStatement()) {
            statement.execute("NOTIFY pgqueue_pgqueue, 'marker'");
        }
        List<String> payloads = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            PGNotification[] notifications = listening.unwrap(PGConnection.class).getNotifications(1000);
            for (PGNotification notification : (notifications != null) ? notifications : new PGNotification[0]) {
                if (notification.getParameter().equals("marker")) {
                    return payloads;
                }
                payloads.add(notification.getParameter());
            }
        }
        throw new AssertionError("The marker never arrived; before it: " + payloads);
    }
}
