package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Handlers on virtual threads when the application asks for them (Boot's {@code spring.threads.virtual.enabled},
 * or pgqueue's own property), on Java 21 or later; platform threads on Java 17. The build runs this class on
 * Java 17 and, where the machine has one, on a Java 25 runtime.
 */
class VirtualWorkerThreadsTests {

    private static final TestDatabase database = TestPostgres.createDatabase(VirtualWorkerThreadsTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    record Work(int n) {
    }

    /** Whether the calling thread is virtual, asked without Java 21's API (the code compiles for Java 17). */
    static boolean currentThreadIsVirtual() {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
        }
        catch (NoSuchMethodException ex) {
            return false;
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    static class ThreadRecorder {

        final Map<String, Boolean> virtualByQueue = new ConcurrentHashMap<>();

        final CountDownLatch handled = new CountDownLatch(2);

        @QueueListener(queue = "vt-lease", mode = "LEASE")
        void lease(Work work) {
            record("vt-lease");
        }

        @QueueListener(queue = "vt-tx", mode = "TRANSACTIONAL")
        void transactional(Work work) {
            record("vt-tx");
        }

        private void record(String queue) {
            virtualByQueue.put(queue, currentThreadIsVirtual());
            handled.countDown();
        }
    }

    private Map<String, Boolean> threadsOfHandlers(String... properties) {
        ThreadRecorder recorder = new ThreadRecorder();
        runner.withPropertyValues(properties).withBean(ThreadRecorder.class, () -> recorder).run((context) -> {
            assertThat(context).hasNotFailed();
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.send("vt-lease", new Work(1));
            template.send("vt-tx", new Work(2));
            assertThat(recorder.handled.await(20, TimeUnit.SECONDS)).isTrue();
        });
        return recorder.virtualByQueue;
    }

    @Test
    void bootsVirtualThreadSwitchPutsBothDeliveryModesOnVirtualThreadsFromJava21() {
        boolean expected = Runtime.version().feature() >= 21;
        assertThat(threadsOfHandlers("spring.threads.virtual.enabled=true"))
            .containsEntry("vt-lease", expected)
            .containsEntry("vt-tx", expected);
    }

    @Test
    void withoutTheSwitchHandlersRunOnPlatformThreads() {
        assertThat(threadsOfHandlers()).containsEntry("vt-lease", false).containsEntry("vt-tx", false);
    }

    @Test
    void pgqueuesPropertyOverridesBootsSwitchPerQueue() {
        assertThat(threadsOfHandlers("spring.threads.virtual.enabled=true", "pgqueue.listener.worker-threads=platform"))
            .containsEntry("vt-lease", false)
            .containsEntry("vt-tx", false);
        assumeThat(Runtime.version().feature()).as("virtual threads need Java 21").isGreaterThanOrEqualTo(21);
        assertThat(threadsOfHandlers("pgqueue.queues.vt-tx.worker-threads=virtual"))
            .containsEntry("vt-lease", false)
            .containsEntry("vt-tx", true);
    }

    @Test
    void askingForVirtualThreadsOnJava17FailsStartupNamingTheProperty() {
        assumeThat(Runtime.version().feature()).as("Java 17 only").isLessThan(21);
        runner.withPropertyValues("pgqueue.queues.vt-lease.worker-threads=virtual")
            .withBean(ThreadRecorder.class)
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "pgqueue.queues.vt-lease.worker-threads=virtual needs Java 21 or later; this JVM is Java 17");
            });
    }

    static class WaitingHandlers {

        final AtomicInteger running = new AtomicInteger();

        final AtomicInteger mostRunning = new AtomicInteger();

        final AtomicInteger mostConnections = new AtomicInteger();

        final AtomicInteger done = new AtomicInteger();

        private final HikariDataSource pool;

        WaitingHandlers(DataSource dataSource) {
            this.pool = (HikariDataSource) dataSource;
        }

        @QueueListener(queue = "vt-waits", concurrency = "1000", batchSize = "100")
        void handle(Work work) throws InterruptedException {
            mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            mostConnections.accumulateAndGet(pool.getHikariPoolMXBean().getActiveConnections(), Math::max);
            // a call to another service
            Thread.sleep(200);
            running.decrementAndGet();
            done.incrementAndGet();
        }
    }

    @Test
    void aThousandVirtualWorkersWaitAtOnceWithoutHoldingConnections() {
        assumeThat(Runtime.version().feature()).as("virtual threads need Java 21").isGreaterThanOrEqualTo(21);
        int jobs = 3_000;
        // pgqueue's own connections while the handlers wait: LISTEN (held), two pollers, the acknowledgements, the
        // heartbeat (which also renews the leases of finished jobs until their acknowledgements commit) and the
        // vacuum watch, at most 6; maintenance, which would make a seventh, is off here (no job is scheduled)
        runner.withPropertyValues("spring.threads.virtual.enabled=true", "pgqueue.listener.auto-startup=false",
                "pgqueue.maintenance.enabled=false")
            .withBean(WaitingHandlers.class)
            .run((context) -> {
                context.getBean(QueueTemplate.class)
                    .sendBatch("vt-waits", IntStream.range(0, jobs).mapToObj(Work::new).toList());
                // the listeners start once the send has given its connection back: the count below is the
                // listeners' alone (a wake-up by the send's NOTIFY could start a handler while the sending thread
                // was still returning its connection to the pool)
                context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).start();
                WaitingHandlers handlers = context.getBean(WaitingHandlers.class);
                await().atMost(Duration.ofSeconds(60)).until(() -> handlers.done.get() == jobs);
                // hundreds of handlers wait side by side, and the connections in use while they do are
                // pgqueue's own (pollers, acknowledgements, heartbeat), not one per waiting handler: the pool
                // has 12
                assertThat(handlers.mostRunning.get()).isGreaterThan(500);
                assertThat(handlers.mostConnections.get()).isLessThanOrEqualTo(6);
                assertThat(List.of(handlers.running.get())).containsExactly(0);
            });
    }
}
