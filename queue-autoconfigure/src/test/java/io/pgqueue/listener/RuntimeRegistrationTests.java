package io.pgqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application without {@code @QueueListener} methods registers a listener once it runs: its node joins
 * the cluster then (heartbeat, LISTEN), so the new container claims, and the node lists it.
 */
class RuntimeRegistrationTests {

    private static final TestDatabase database = TestPostgres.createDatabase(RuntimeRegistrationTests.class);

    @Test
    void listenerRegisteredAfterStartupClaimsJobs() {
        QueueContextRunners.fastListeners(database).run((context) -> {
            QueueListenerContainerRegistry registry = context.getBean(QueueListenerContainerRegistry.class);
            assertThat(registry.isRunning()).isTrue();
            assertThat(registry.getListenerContainers()).isEmpty();
            Counter counter = new Counter();
            registry.register(new ListenerEndpoint(counter, Counter.class.getDeclaredMethod("handle", Map.class),
                    "late", null, null, null, null, null, null));

            context.getBean(QueueTemplate.class).send("late", Map.of("n", 1));
            await().atMost(Duration.ofSeconds(10)).until(() -> counter.handled.get() == 1);
            assertThat(context.getBean(QueueAdmin.class).nodes()).singleElement()
                .satisfies((node) -> assertThat(node.containers()).singleElement()
                    .satisfies((container) -> assertThat(container.queue()).isEqualTo("late")));
        });
    }

    static class Counter {

        final AtomicInteger handled = new AtomicInteger();

        void handle(Map<String, Object> payload) {
            handled.incrementAndGet();
        }
    }
}
