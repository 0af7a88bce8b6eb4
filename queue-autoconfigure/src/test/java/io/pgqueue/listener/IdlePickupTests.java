package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A LEASE queue that is idle runs the job that wakes it on the thread that claimed it, which first hands
 * polling on (see {@code LeaseQueueListenerContainer}): the jobs sent while that handler runs are picked up,
 * concurrency still bounds how many run, and the shutdown stops that handler as it stops a worker's.
 */
class IdlePickupTests {

    private static final TestDatabase database = TestPostgres.createDatabase(IdlePickupTests.class);

    /** A poll interval far beyond every wait here: only wake-ups start the jobs. */
    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.poll-interval=30s");

    private final Jobs jobs = new Jobs(database.dataSource());

    record Step(int n) {
    }

    /** Holds every job until released; records which have started and how many ran at once. */
    static class Holding {

        final Map<Integer, CountDownLatch> started = new ConcurrentHashMap<>();

        final CountDownLatch release = new CountDownLatch(1);

        final AtomicInteger running = new AtomicInteger();

        final AtomicInteger mostAtOnce = new AtomicInteger();

        final Set<Integer> interrupted = ConcurrentHashMap.newKeySet();

        final AtomicInteger finished = new AtomicInteger();

        @QueueListener(queue = "${holding.queue}", concurrency = "${holding.concurrency}", batchSize = "10")
        void handle(Step step) throws InterruptedException {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            started(step.n()).countDown();
            try {
                release.await();
                finished.incrementAndGet();
            }
            catch (InterruptedException ex) {
                interrupted.add(step.n());
                throw ex;
            }
            finally {
                running.decrementAndGet();
            }
        }

        CountDownLatch started(int n) {
            return started.computeIfAbsent(n, (key) -> new CountDownLatch(1));
        }

        boolean hasStarted(int n) {
            return started(n).getCount() == 0;
        }
    }

    /** Records the thread each job ran on. */
    static class Threads {

        final List<String> names = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "idle-pickup", concurrency = "4")
        void handle(Step step) {
            names.add(Thread.currentThread().getName());
        }
    }

    /**
     * The hand-off to a parked worker is what the pickup's tail was made of (see docs/performance.md): a job that
     * finds its queue idle must not pay it.
     */
    @Test
    void aJobThatFindsItsQueueIdleRunsWithoutAHandOffToAWorker() {
        Threads threads = new Threads();
        runner.withBean(Threads.class, () -> threads).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            for (int n = 1; n <= 5; n++) {
                template.send("idle-pickup", new Step(n));
                int sent = n;
                await().atMost(Duration.ofSeconds(10)).until(() -> threads.names.size() == sent);
                await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("idle-pickup") == 0);
            }
        });
        assertThat(threads.names).hasSize(5).allMatch((name) -> name.matches("pgqueue-.*-poller-[12]"), "a poll thread");
    }

    /** Leaves its thread interrupted, as a handler that caught an interruption and passed it on would. */
    static class LeavesInterrupted {

        final AtomicInteger handled = new AtomicInteger();

        @QueueListener(queue = "leaves-interrupted", concurrency = "4")
        void handle(Step step) {
            handled.incrementAndGet();
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aHandlerThatLeavesItsThreadInterruptedHasItsJobsAcknowledgedAndTheQueueGoesOn() {
        LeavesInterrupted handler = new LeavesInterrupted();
        runner.withBean(LeavesInterrupted.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            for (int n = 1; n <= 4; n++) {
                template.send("leaves-interrupted", new Step(n));
                int sent = n;
                await().atMost(Duration.ofSeconds(5)).until(() -> jobs.count("leaves-interrupted") == 0);
                assertThat(handler.handled).hasValue(sent);
            }
            // an acknowledgement lost to the interruption would run its job again once the lease (2 s) expired
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> handler.handled.get() == 4);
            assertThat(context.getBean(QueueListenerContainerRegistry.class).getListenerContainers())
                .allMatch(QueueListenerContainer::isRunning);
        });
    }

    @Test
    void aContainerStoppedAndStartedAgainPicksUpTheNextJobAtOnce() {
        Threads threads = new Threads();
        runner.withBean(Threads.class, () -> threads).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.send("idle-pickup", new Step(1));
            await().atMost(Duration.ofSeconds(10)).until(() -> threads.names.size() == 1);
            QueueListenerContainer container = context.getBean(QueueListenerContainerRegistry.class)
                .getListenerContainers()
                .iterator()
                .next();
            container.stop();
            container.start();

            template.send("idle-pickup", new Step(2));
            await().atMost(Duration.ofSeconds(5)).until(() -> threads.names.size() == 2);
        });
    }

    @Test
    void jobsSentOneByOneWhileEarlierOnesRunStartUpToTheConcurrency() {
        Holding holding = new Holding();
        runner.withPropertyValues("holding.queue=one-by-one", "holding.concurrency=3")
            .withBean(Holding.class, () -> holding)
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                for (int n = 1; n <= 3; n++) {
                    template.send("one-by-one", new Step(n));
                    int sent = n;
                    // the job that found the queue idle still holds its thread: the next ones start anyway
                    await().atMost(Duration.ofSeconds(10)).until(() -> holding.hasStarted(sent));
                }
                assertThat(holding.running).hasValue(3);

                template.send("one-by-one", new Step(4));
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> !holding.hasStarted(4));

                holding.release.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> holding.finished.get() == 4);
                await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("one-by-one") == 0);
            });
        assertThat(holding.mostAtOnce).hasValue(3);
    }

    @Test
    void withOneWorkerTheNextJobWaitsForTheFirstAndThenRuns() {
        Holding holding = new Holding();
        runner.withPropertyValues("holding.queue=single", "holding.concurrency=1")
            .withBean(Holding.class, () -> holding)
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.send("single", new Step(1));
                await().atMost(Duration.ofSeconds(10)).until(() -> holding.hasStarted(1));
                template.send("single", new Step(2));
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> !holding.hasStarted(2));

                holding.release.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> holding.finished.get() == 2);
            });
        assertThat(holding.mostAtOnce).hasValue(1);
    }

    @Test
    void aLoneJobStillRunningAfterTheShutdownTimeoutIsInterruptedAndGivenBack() {
        Holding holding = new Holding();
        runner.withPropertyValues("holding.queue=lone", "holding.concurrency=4",
                "pgqueue.listener.shutdown-timeout=300ms")
            .withBean(Holding.class, () -> holding)
            .run((context) -> {
                context.getBean(QueueTemplate.class).send("lone", new Step(1));
                await().atMost(Duration.ofSeconds(10)).until(() -> holding.hasStarted(1));

                ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();

                assertThat(holding.interrupted).containsExactly(1);
                assertThat(jobs.count("lone", "running")).isZero();
                assertThat(jobs.count("lone", "ready")).isEqualTo(1);
                assertThat(jobs.jdbc().queryForObject("SELECT attempts FROM pgqueue.job WHERE queue = 'lone'",
                        Integer.class)).isZero();
            });
    }
}
