package io.pgqueue.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.listener.JobContext;
import io.pgqueue.testsupport.RestartablePostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two nodes run long LEASE handlers while PostgreSQL is down for longer than the node timeout. When it is
 * back, neither node may judge the other by heartbeats that could not be written during the outage: no
 * running job is released, and every handler runs once.
 */
class LongOutageTests {

    private static final Duration NODE_TIMEOUT = Duration.ofSeconds(3);

    private static RestartablePostgres postgres;

    @BeforeAll
    static void startServer() {
        postgres = RestartablePostgres.start();
    }

    @AfterAll
    static void stopServer() {
        postgres.close();
    }

    /** Long handlers: each records its run and waits until the test lets it finish. */
    static class LongHandler {

        final Map<Long, List<Integer>> runs;

        final CountDownLatch started;

        final CountDownLatch finish;

        LongHandler(Map<Long, List<Integer>> runs, CountDownLatch started, CountDownLatch finish) {
            this.runs = runs;
            this.started = started;
            this.finish = finish;
        }

        @QueueListener(queue = "long-outage", concurrency = "4", batchSize = "4")
        void handle(Integer payload, JobContext job) throws InterruptedException {
            runs.computeIfAbsent(job.id(), (id) -> new CopyOnWriteArrayList<>()).add(job.attempt());
            started.countDown();
            finish.await(60, TimeUnit.SECONDS);
        }
    }

    private ApplicationContextRunner runner(LongHandler handler) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    PgQueueAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl("postgres"),
                    "spring.datasource.username=postgres", "spring.datasource.hikari.connection-timeout=500",
                    "spring.datasource.hikari.maximum-pool-size=6", "pgqueue.listener.poll-interval=200ms",
                    "pgqueue.listener.heartbeat-interval=200ms", "pgqueue.listener.node-timeout=" + NODE_TIMEOUT.toMillis() + "ms",
                    "pgqueue.listener.lease-duration=5s", "pgqueue.maintenance.enabled=false")
            .withBean(LongHandler.class, () -> handler);
    }

    @Test
    void anOutageLongerThanTheNodeTimeoutReleasesNothingThatStillRuns() {
        Map<Long, List<Integer>> runs = new ConcurrentHashMap<>();
        CountDownLatch started = new CountDownLatch(8);
        CountDownLatch finish = new CountDownLatch(1);
        LongHandler handler = new LongHandler(runs, started, finish);
        JdbcTemplate database = new JdbcTemplate(new SimpleDriverDataSource(new org.postgresql.Driver(),
                postgres.jdbcUrl("postgres"), "postgres", ""));
        runner(handler).run((a) -> runner(handler).run((b) -> {
            List<Long> ids = a.getBean(QueueTemplate.class)
                .sendBatch("long-outage", IntStream.range(0, 8).boxed().toList())
                .jobIds();
            assertThat(started.await(20, TimeUnit.SECONDS)).as("all 8 handlers running on the two nodes").isTrue();

            postgres.stop();
            // the outage lasts until both nodes have missed heartbeats for longer than the node timeout
            await().atMost(Duration.ofSeconds(20)).until(() -> Heartbeats.age(a).compareTo(NODE_TIMEOUT.multipliedBy(2)) > 0
                    && Heartbeats.age(b).compareTo(NODE_TIMEOUT.multipliedBy(2)) > 0);
            postgres.startServer();

            await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                .until(() -> Heartbeats.age(a).compareTo(NODE_TIMEOUT) < 0 && Heartbeats.age(b).compareTo(NODE_TIMEOUT) < 0);
            // both nodes are back and rescuing again: every job stays running, none is handed out again
            await().during(NODE_TIMEOUT.multipliedBy(2)).atMost(NODE_TIMEOUT.multipliedBy(4))
                .until(() -> database.queryForObject(
                        "SELECT count(*) FROM pgqueue.job WHERE queue = 'long-outage' AND state = 'running'",
                        Long.class) == 8);

            finish.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> database.queryForObject(
                    "SELECT count(*) FROM pgqueue.job WHERE queue = 'long-outage'", Long.class) == 0);
            assertThat(runs).containsOnlyKeys(ids);
            assertThat(runs.values()).allSatisfy((attempts) -> assertThat(attempts).containsExactly(1));
        }));
    }
}
