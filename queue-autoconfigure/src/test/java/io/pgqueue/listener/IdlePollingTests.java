package io.pgqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.support.StatementCounter;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node listening to many idle queues polls them all in one statement per poll interval, not one per queue,
 * and still finds what arrives without a NOTIFY: jobs sent by a node with NOTIFY off, delayed jobs that
 * become due, retries, and the jobs of a resumed queue.
 */
class IdlePollingTests {

    private static final TestDatabase database = TestPostgres.createDatabase(IdlePollingTests.class);

    private static final int QUEUES = 50;

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.notify=false", "pgqueue.maintenance.interval=200ms");

    @Test
    void manyIdleQueuesCostOnePollPerIntervalAndStillFindTheirJobs() {
        StatementCounter polls = new StatementCounter();
        runner.withBean(DataSource.class, () -> polls.wrap(QueueContextRunners.pool(database))).run((context) -> {
            QueueListenerContainerRegistry registry = context.getBean(QueueListenerContainerRegistry.class);
            Handler handler = new Handler();
            for (int q = 0; q < QUEUES; q++) {
                registry.register(new ListenerEndpoint(handler, Handler.class.getDeclaredMethod("handle", Map.class),
                        "idle-" + q, null, "1", null, null, "3", null));
            }
            // let every container poll once, find nothing and park
            await().atMost(Duration.ofSeconds(5)).until(() -> polls.count() >= QUEUES);
            polls.reset();
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
            // with a 200 ms poll interval, 50 queues polled one by one would be 500 claims in 2 s; parked, the node
            // makes one idle poll per interval, beside its heartbeat, scheduler and maintenance (about 40 in all)
            assertThat(polls.count()).as(polls.statements()).isLessThan(100);

            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.send("idle-7", Map.of("n", 1));
            await().atMost(Duration.ofSeconds(2)).until(() -> handler.handled.get() == 1);

            template.send("idle-8", Map.of("n", 2), SendOptions.builder().delay(Duration.ofMillis(300)).build());
            await().atMost(Duration.ofSeconds(3)).until(() -> handler.handled.get() == 2);

            // fails twice (20 ms backoff), then succeeds: each retry is picked up when due
            template.send("idle-9", Map.of("n", 3, "fail", 2));
            await().atMost(Duration.ofSeconds(3)).until(() -> handler.handled.get() == 3);

            QueueAdmin admin = context.getBean(QueueAdmin.class);
            admin.pause("idle-10");
            template.send("idle-10", Map.of("n", 4));
            await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(2)).until(() -> handler.handled.get() == 3);
            admin.resume("idle-10");
            await().atMost(Duration.ofSeconds(2)).until(() -> handler.handled.get() == 4);
        });
    }

    @Test
    void resumingAQueueWakesItsListenersAtOnceRatherThanAtTheirNextPoll() {
        QueueContextRunners.fastListeners(database)
            .withPropertyValues("pgqueue.listener.notify=true", "pgqueue.listener.poll-interval=30s",
                    "pgqueue.maintenance.interval=30s")
            .run((context) -> {
                QueueListenerContainerRegistry registry = context.getBean(QueueListenerContainerRegistry.class);
                Handler handler = new Handler();
                registry.register(new ListenerEndpoint(handler, Handler.class.getDeclaredMethod("handle", Map.class),
                        "resumed", null, "1", null, null, "3", null));
                QueueAdmin admin = context.getBean(QueueAdmin.class);
                admin.pause("resumed");
                context.getBean(QueueTemplate.class).send("resumed", Map.of("n", 1));
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> handler.handled.get() == 0);
                admin.resume("resumed");
                // the poll interval is 30 s: only the wake-up can start the job this soon
                await().atMost(Duration.ofSeconds(5)).until(() -> handler.handled.get() == 1);
            });
    }

    static class Handler {

        final AtomicInteger handled = new AtomicInteger();

        final Map<Object, AtomicInteger> attempts = new java.util.concurrent.ConcurrentHashMap<>();

        void handle(Map<String, Object> payload) {
            Object fail = payload.get("fail");
            if (fail != null && attempts.computeIfAbsent(payload.get("n"), (n) -> new AtomicInteger())
                .incrementAndGet() <= ((Number) fail).intValue()) {
                throw new IllegalStateException("failing on purpose");
            }
            handled.incrementAndGet();
        }
    }
}
