package io.pgqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.model.CancelResult;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cancellation requested from another application reaches the node running the job by NOTIFY: its handler is
 * interrupted within milliseconds, not at its node's next heartbeat (5 s here, the default).
 */
class NotifyCancelTests {

    private static final TestDatabase database = TestPostgres.createDatabase(NotifyCancelTests.class);

    private static final int JOBS = 20;

    private final ApplicationContextRunner worker = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.listener.heartbeat-interval=5s", "pgqueue.listener.poll-interval=100ms",
                "pgqueue.history.enabled=true");

    private final ApplicationContextRunner operator = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.listener.auto-startup=false", "pgqueue.maintenance.enabled=false",
                "pgqueue.history.enabled=true");

    record Work(int n) {
    }

    /** Blocks until interrupted, and tells when it was. */
    static class Blocking {

        final BlockingQueue<Long> started = new ArrayBlockingQueue<>(JOBS);

        final BlockingQueue<Long> interruptedAt = new ArrayBlockingQueue<>(JOBS);

        @QueueListener(queue = "blocking")
        void handle(Work work, JobContext job) {
            started.add(job.id());
            try {
                Thread.sleep(60_000);
            }
            catch (InterruptedException ex) {
                interruptedAt.add(System.nanoTime());
            }
        }
    }

    @Test
    void aRunningJobCancelledFromAnotherApplicationIsInterruptedWithinMilliseconds() throws Exception {
        Blocking blocking = new Blocking();
        worker.withBean(Blocking.class, () -> blocking).run((node) -> operator.run((ops) -> {
            QueueTemplate template = node.getBean(QueueTemplate.class);
            QueueAdmin admin = ops.getBean(QueueAdmin.class);
            List<Long> latencies = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                long id = template.send("blocking", new Work(i));
                assertThat(blocking.started.poll(10, TimeUnit.SECONDS)).isEqualTo(id);
                long requestedAt = System.nanoTime();
                assertThat(admin.cancel(id)).isEqualTo(CancelResult.CANCEL_REQUESTED);
                Long interruptedAt = blocking.interruptedAt.poll(10, TimeUnit.SECONDS);
                assertThat(interruptedAt).as("job %d interrupted", id).isNotNull();
                latencies.add(TimeUnit.NANOSECONDS.toMillis(interruptedAt - requestedAt));
                await().atMost(Duration.ofSeconds(10)).until(() -> admin.job(id).state() == JobState.CANCELLED);
            }
            latencies.sort(null);
            System.out.println("cancel() to interruption, ms: " + latencies);
            long p99 = latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1);
            assertThat(p99).as("p99 from cancel() to interruption, ms (all: %s)", latencies).isLessThan(500);
        }));
    }

    @Test
    void aBulkCancellationInterruptsEveryRunningJobOfTheQueueAtOnce() throws Exception {
        Blocking blocking = new Blocking();
        worker.withBean(Blocking.class, () -> blocking)
            .withPropertyValues("pgqueue.queues.blocking.concurrency=3")
            .run((node) -> operator.run((ops) -> {
                QueueTemplate template = node.getBean(QueueTemplate.class);
                for (int i = 0; i < 3; i++) {
                    template.send("blocking", new Work(i));
                }
                for (int i = 0; i < 3; i++) {
                    assertThat(blocking.started.poll(10, TimeUnit.SECONDS)).isNotNull();
                }
                long requestedAt = System.nanoTime();
                assertThat(ops.getBean(QueueAdmin.class).cancel(JobQuery.queue("blocking").build()).cancelRequested())
                    .isEqualTo(3);
                for (int i = 0; i < 3; i++) {
                    Long interruptedAt = blocking.interruptedAt.poll(10, TimeUnit.SECONDS);
                    assertThat(interruptedAt).isNotNull();
                    assertThat(Duration.ofNanos(interruptedAt - requestedAt)).isLessThan(Duration.ofSeconds(2));
                }
            }));
    }
}
