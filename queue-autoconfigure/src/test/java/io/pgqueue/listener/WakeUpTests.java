package io.pgqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A wake-up reaches every idle worker of a container: a burst arriving at an idle TRANSACTIONAL container
 * runs on all its workers at once, not on one while the others sleep until their next poll.
 */
class WakeUpTests {

    private static final TestDatabase database = TestPostgres.createDatabase(WakeUpTests.class);

    private static final int WORKERS = 4;

    @Test
    void burstOnAnIdleTransactionalContainerRunsOnAllItsWorkersAtOnce() {
        // a 30 s poll interval: only the wake-up of the send can start the workers within the test's wait
        QueueContextRunners.fastListeners(database)
            .withPropertyValues("pgqueue.listener.poll-interval=30s", "pgqueue.maintenance.interval=30s")
            .run((context) -> {
                Handler handler = new Handler();
                QueueListenerContainer container = context.getBean(QueueListenerContainerRegistry.class)
                    .register(new ListenerEndpoint(handler, Handler.class.getDeclaredMethod("handle", Map.class),
                            "burst", null, String.valueOf(WORKERS), "TRANSACTIONAL", "1", null, null));
                // every worker has polled an empty queue and waits
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(container::isRunning);
                org.awaitility.Awaitility.await().pollDelay(Duration.ofMillis(300)).until(() -> true);

                context.getBean(QueueTemplate.class)
                    .sendBatch("burst", IntStream.range(0, WORKERS).mapToObj((i) -> Map.of("n", i)).toList());

                // each handler waits for the others: they finish only if all workers run together
                assertThat(handler.allRunning.await(10, TimeUnit.SECONDS)).as("%d of %d workers running",
                        WORKERS - handler.allRunning.getCount(), WORKERS).isTrue();
            });
    }

    static class Handler {

        final CountDownLatch allRunning = new CountDownLatch(WORKERS);

        void handle(Map<String, Object> payload) throws InterruptedException {
            allRunning.countDown();
            allRunning.await(15, TimeUnit.SECONDS);
        }
    }
}
