package io.pgqueue.reliability;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two nodes run long LEASE handlers while another session holds an {@code ACCESS EXCLUSIVE} lock on the node
 * table for longer than the node timeout but shorter than the statement timeout (as {@code VACUUM FULL},
 * pg_repack, a migration or commits waiting for an unreachable synchronous standby do). The heartbeats that
 * waited out the stall succeed in the end; neither node may take that as proof that the others stopped, so
 * no running job is released and every handler runs once.
 */
class StallTests {

    private static final Duration NODE_TIMEOUT = Duration.ofSeconds(3);

    private static TestDatabase database;

    @BeforeAll
    static void createDatabase() {
        database = TestPostgres.createDatabase(StallTests.class);
    }

    /** The outage test's long handlers (queue 'long-outage'), here in a database of this test's own. */
    private ApplicationContextRunner runner(LongOutageTests.LongHandler handler) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    PgQueueAutoConfiguration.class))
            .withPropertyValues(database.springProperties())
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=6", "pgqueue.listener.poll-interval=200ms",
                    "pgqueue.listener.heartbeat-interval=200ms",
                    "pgqueue.listener.node-timeout=" + NODE_TIMEOUT.toMillis() + "ms",
                    "pgqueue.listener.lease-duration=10s", "pgqueue.maintenance.enabled=false")
            .withBean(LongOutageTests.LongHandler.class, () -> handler);
    }

    @Test
    void aLockOnTheNodeTableLongerThanTheNodeTimeoutReleasesNothingThatStillRuns() throws Exception {
        Map<Long, List<Integer>> runs = new ConcurrentHashMap<>();
        CountDownLatch started = new CountDownLatch(8);
        CountDownLatch finish = new CountDownLatch(1);
        LongOutageTests.LongHandler handler = new LongOutageTests.LongHandler(runs, started, finish);
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        runner(handler).run((a) -> runner(handler).run((b) -> {
            List<Long> ids = a.getBean(QueueTemplate.class)
                .sendBatch("long-outage", IntStream.range(0, 8).boxed().toList())
                .jobIds();
            assertThat(started.await(20, TimeUnit.SECONDS)).as("all 8 handlers running on the two nodes")
                .isTrue();

            try (Connection locker = database.connect(); Statement statement = locker.createStatement()) {
                locker.setAutoCommit(false);
                statement.execute("LOCK TABLE pgqueue.node IN ACCESS EXCLUSIVE MODE");
                // the stall lasts until neither node has completed a heartbeat for longer than the node timeout
                await().atMost(Duration.ofSeconds(20)).until(() -> Heartbeats.age(a).compareTo(NODE_TIMEOUT.plusSeconds(1)) > 0
                        && Heartbeats.age(b).compareTo(NODE_TIMEOUT.plusSeconds(1)) > 0);
                locker.commit();
            }

            await().atMost(Duration.ofSeconds(20))
                .until(() -> Heartbeats.age(a).compareTo(NODE_TIMEOUT) < 0 && Heartbeats.age(b).compareTo(NODE_TIMEOUT) < 0);
            // both nodes are back and rescuing again: every job stays running, none is handed out again
            await().during(NODE_TIMEOUT.multipliedBy(2)).atMost(NODE_TIMEOUT.multipliedBy(4))
                .until(() -> jdbc.queryForObject(
                        "SELECT count(*) FROM pgqueue.job WHERE queue = 'long-outage' AND state = 'running' AND attempts = 1",
                        Long.class) == 8);

            finish.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM pgqueue.job WHERE queue = 'long-outage'", Long.class) == 0);
            assertThat(runs).containsOnlyKeys(ids);
            assertThat(runs.values()).allSatisfy((attempts) -> assertThat(attempts).containsExactly(1));
        }));
    }
}
