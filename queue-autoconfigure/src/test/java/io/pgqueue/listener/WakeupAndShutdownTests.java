package io.pgqueue.listener;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WakeupAndShutdownTests {

    private static final TestDatabase database = TestPostgres.createDatabase(WakeupAndShutdownTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    private final Jobs jobs = new Jobs(database.dataSource());

    record Ping(int n) {
    }

    static class Stopwatch {

        final AtomicLong startedNanos = new AtomicLong();

        final CountDownLatch first = new CountDownLatch(1);

        final CountDownLatch started = new CountDownLatch(1);

        @QueueListener(queue = "idle")
        void handle(Ping ping) {
            if (ping.n() == 0) {
                first.countDown();
                return;
            }
            startedNanos.set(System.nanoTime());
            started.countDown();
        }
    }

    @Test
    void notifyFromAnotherApplicationWakesAnIdleListenerLongBeforeItsPollInterval() {
        Stopwatch stopwatch = new Stopwatch();
        runner.withPropertyValues("pgqueue.listener.poll-interval=10s")
            .withBean(Stopwatch.class, () -> stopwatch)
            .run((context) -> {
                Wakeups wakeups = context.getBean(Wakeups.class);
                await().atMost(Duration.ofSeconds(10)).until(wakeups::isListening);
                // a second application without listeners publishes: only NOTIFY can reach the first one
                runner.run((publisher) -> {
                    QueueTemplate template = publisher.getBean(QueueTemplate.class);
                    // after a first job the poller's claim came back short: it now waits out its 10 s interval
                    template.send("idle", new Ping(0));
                    assertThat(stopwatch.first.await(15, TimeUnit.SECONDS)).isTrue();

                    long sentNanos = System.nanoTime();
                    template.send("idle", new Ping(1));

                    assertThat(stopwatch.started.await(5, TimeUnit.SECONDS)).isTrue();
                    assertThat(Duration.ofNanos(stopwatch.startedNanos.get() - sentNanos))
                        .isLessThan(Duration.ofSeconds(1));
                });
            });
    }

    @Test
    void aSendFromTheSameApplicationWakesItsListenerWithoutNotify() {
        Stopwatch stopwatch = new Stopwatch();
        runner.withPropertyValues("pgqueue.listener.poll-interval=10s", "pgqueue.listener.notify=false")
            .withBean(Stopwatch.class, () -> stopwatch)
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.send("idle", new Ping(0));
                assertThat(stopwatch.first.await(15, TimeUnit.SECONDS)).isTrue();

                long sentNanos = System.nanoTime();
                new TransactionTemplate(context.getBean(org.springframework.transaction.PlatformTransactionManager.class))
                    .executeWithoutResult((status) -> template.send("idle", new Ping(1)));

                assertThat(stopwatch.started.await(5, TimeUnit.SECONDS)).isTrue();
                assertThat(Duration.ofNanos(stopwatch.startedNanos.get() - sentNanos)).isLessThan(Duration.ofSeconds(1));
            });
    }

    @Test
    void withNotifyOffPollingStillFindsJobsOfOtherApplications() {
        Stopwatch stopwatch = new Stopwatch();
        runner.withPropertyValues("pgqueue.listener.notify=false")
            .withBean(Stopwatch.class, () -> stopwatch)
            .run((context) -> {
                assertThat(context.getBean(Wakeups.class).isListening()).isFalse();
                // written behind pgqueue's back: neither a NOTIFY nor an in-process wake-up announces it
                jobs.insertRaw("idle", "{\"n\": 2}", Ping.class.getName());
                assertThat(stopwatch.started.await(5, TimeUnit.SECONDS)).isTrue();
            });
    }

    @Test
    void aBatchOfTenThousandAndManySendsInOneTransactionEachNotifyOnce() throws Exception {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            try (Connection listening = database.connect(); Statement statement = listening.createStatement()) {
                statement.execute("LISTEN pgqueue_pgqueue");

                template.sendBatch("loud", IntStream.range(0, 10_000).mapToObj(Ping::new).toList());
                assertThat(received(listening, Duration.ofSeconds(1))).containsExactly("loud");

                new TransactionTemplate(context.getBean(org.springframework.transaction.PlatformTransactionManager.class))
                    .executeWithoutResult((status) -> {
                        template.send("tx-a", new Ping(1));
                        template.send("tx-a", new Ping(2));
                        template.send("tx-b", new Ping(3));
                        template.send("tx-a", new Ping(4));
                    });
                assertThat(received(listening, Duration.ofSeconds(1))).containsExactlyInAnyOrder("tx-a", "tx-b");
            }
        });
    }

    @Test
    void debouncedNotificationIsFollowedByATrailingOne() throws Exception {
        runner.withPropertyValues("pgqueue.listener.notify-debounce=1s").run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            try (Connection listening = database.connect(); Statement statement = listening.createStatement()) {
                statement.execute("LISTEN pgqueue_pgqueue");
                template.send("burst", new Ping(1));
                template.send("burst", new Ping(2));
                template.send("burst", new Ping(3));

                // one with the first insert, one trailing after the window for the two debounced ones
                assertThat(received(listening, Duration.ofMillis(2500))).containsExactly("burst", "burst");
            }
        });
    }

    static class Slow {

        final CountDownLatch started = new CountDownLatch(2);

        final CountDownLatch release = new CountDownLatch(1);

        @QueueListener(queue = "slow", concurrency = "2", batchSize = "2")
        void handle(Ping ping) throws InterruptedException {
            started.countDown();
            release.await();
        }
    }

    @Test
    void closingTheContextMidRunLeavesNothingRunningAndLosesNothing() {
        Slow slow = new Slow();
        runner.withPropertyValues("pgqueue.listener.shutdown-timeout=300ms")
            .withBean(Slow.class, () -> slow)
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.sendBatch("slow", List.of(new Ping(1), new Ping(2), new Ping(3)));
                assertThat(slow.started.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(jobs.count("slow", "running")).isEqualTo(2);

                ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();

                assertThat(jobs.count("slow", "running")).isZero();
                assertThat(jobs.count("slow")).isEqualTo(3);
                assertThat(jobs.jdbc().queryForObject("SELECT max(attempts) FROM pgqueue.job WHERE queue = 'slow'",
                        Integer.class)).isZero();
                assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.node", Long.class)).isZero();
            });
    }

    static class Quick {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @QueueListener(queue = "quick", concurrency = "1", batchSize = "1")
        void handle(Ping ping) throws InterruptedException {
            started.countDown();
            release.await();
        }
    }

    @Test
    void closingTheContextLetsARunningHandlerFinishWithinTheTimeout() {
        Quick quick = new Quick();
        runner.withBean(Quick.class, () -> quick).run((context) -> {
            context.getBean(QueueTemplate.class).send("quick", new Ping(1));
            assertThat(quick.started.await(10, TimeUnit.SECONDS)).isTrue();

            QueueListenerContainer container = context.getBean(QueueListenerContainerRegistry.class)
                .getListenerContainers()
                .iterator()
                .next();
            // let the handler finish only once the shutdown has begun
            Thread releaser = new Thread(() -> {
                await().atMost(Duration.ofSeconds(10)).until(() -> !container.isRunning());
                quick.release.countDown();
            });
            releaser.start();
            ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();

            assertThat(jobs.count("quick")).isZero();
        });
    }

    private static List<String> received(Connection connection, Duration wait) throws Exception {
        List<String> payloads = new ArrayList<>();
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            PGNotification[] notifications = connection.unwrap(PGConnection.class)
                .getNotifications((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (notifications != null) {
                for (PGNotification notification : notifications) {
                    payloads.add(notification.getParameter());
                }
            }
        }
        return payloads;
    }
}
