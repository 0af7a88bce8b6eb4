package io.pgqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.Containers;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A LEASE container with a prefetch claims that many jobs beyond its free workers: they wait in memory under
 * their lease, run as workers free up, and are given back at once when the container stops.
 */
class PrefetchTests {

    private static final TestDatabase database = TestPostgres.createDatabase(PrefetchTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.queues.prefetched.prefetch=3", "pgqueue.listener.shutdown-timeout=30s")
        .withBean(Blocking.class);

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    static class Blocking {

        final AtomicInteger started = new AtomicInteger();

        final Map<Long, Integer> runs = new ConcurrentHashMap<>();

        volatile CountDownLatch release = new CountDownLatch(1);

        @QueueListener(queue = "prefetched", concurrency = "2", batchSize = "10")
        void handle(String payload, JobContext context) throws InterruptedException {
            started.incrementAndGet();
            runs.merge(context.id(), 1, Integer::sum);
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void claimsThePrefetchBeyondTheBusyWorkersAndRunsEveryJobOnce() {
        runner.run((context) -> {
            Blocking handler = sendTenAndAwaitFiveClaimed(context);
            // two handlers run, three jobs wait for them, and no claim takes more while they do
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> running() == 5 && handler.started.get() == 2);
            assertThat(Containers.of(context, "prefetched").inFlight()).isEqualTo(5);
            handler.release.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> remaining() == 0);
            assertThat(handler.runs).hasSize(10).allSatisfy((id, runs) -> assertThat(runs).isEqualTo(1));
        });
    }

    @Test
    void stoppingGivesThePrefetchedJobsBackAtOnceAndLetsTheRunningOnesFinish() {
        runner.run((context) -> {
            Blocking handler = sendTenAndAwaitFiveClaimed(context);
            QueueListenerContainer container = Containers.of(context, "prefetched");
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(container::stop);
            // the three waiting jobs are ready again while the two handlers still run, their attempts uncounted
            await().atMost(Duration.ofSeconds(10)).until(() -> running() == 2);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'prefetched' "
                    + "AND state = 'ready' AND attempts = 0", Long.class)).isEqualTo(8);
            assertThat(handler.started).hasValue(2);
            handler.release.countDown();
            stopped.get(20, TimeUnit.SECONDS);
            assertThat(remaining()).isEqualTo(8);
            assertThat(running()).isZero();
            // started again, it runs the rest: every job once, none of the given-back ones counted twice
            container.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> remaining() == 0);
            assertThat(handler.runs).hasSize(10).allSatisfy((id, runs) -> assertThat(runs).isEqualTo(1));
        });
    }

    /** Sends ten jobs and waits until two handlers run and five jobs are claimed. */
    private Blocking sendTenAndAwaitFiveClaimed(org.springframework.context.ApplicationContext context) {
        Blocking handler = context.getBean(Blocking.class);
        QueueTemplate template = context.getBean(QueueTemplate.class);
        IntStream.range(0, 10).forEach((i) -> template.send("prefetched", "job " + i));
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.get() == 2 && running() == 5);
        return handler;
    }

    private long running() {
        return jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'prefetched' AND state = 'running'",
                Long.class);
    }

    private long remaining() {
        return jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'prefetched'", Long.class);
    }
}
