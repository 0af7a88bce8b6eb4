package io.pgqueue.reliability;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.listener.JobContext;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.wakeup.Wakeups;
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
import org.springframework.context.ApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * While producers publish and listeners consume, PostgreSQL restarts (fast shutdown, start on the same data
 * directory), or every connection of the application is terminated. The application recovers by itself:
 * listeners, the LISTEN connection and the heartbeat come back, sends during the outage fail with an
 * exception, and everything whose send returned is processed.
 */
class DatabaseOutageTests {

    private static RestartablePostgres postgres;

    private final JdbcTemplate admin = new JdbcTemplate(postgres.dataSource("postgres"));

    @BeforeAll
    static void startServer() {
        postgres = RestartablePostgres.start();
    }

    @AfterAll
    static void stopServer() {
        postgres.close();
    }

    static class Recorder {

        final Set<Long> handled = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "outage-lease", concurrency = "4")
        void lease(String payload, JobContext job) {
            handled.add(job.id());
        }

        @QueueListener(queue = "outage-tx", mode = "TRANSACTIONAL", concurrency = "2")
        void transactional(String payload, JobContext job) {
            handled.add(job.id());
        }
    }

    private ApplicationContextRunner runner(Recorder recorder) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    PgQueueAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl("postgres"),
                    "spring.datasource.username=postgres", "spring.datasource.hikari.connection-timeout=1000",
                    "spring.datasource.hikari.maximum-pool-size=10", "pgqueue.listener.poll-interval=200ms",
                    "pgqueue.listener.heartbeat-interval=300ms", "pgqueue.listener.node-timeout=10s",
                    "pgqueue.listener.lease-duration=20s", "pgqueue.listener.backoff.initial=100ms",
                    "pgqueue.listener.max-attempts=20")
            .withBean(Recorder.class, () -> recorder);
    }

    @Test
    void listenersNotifyAndHeartbeatSurviveARestartAndNothingCommittedIsLost() {
        Recorder recorder = new Recorder();
        runner(recorder).run((context) -> runThrough(context, recorder, () -> {
            postgres.stop();
            postgres.startServer();
        }));
    }

    @Test
    void everythingSurvivesTerminatedConnections() {
        Recorder recorder = new Recorder();
        runner(recorder).run((context) -> runThrough(context, recorder, () -> admin
            .queryForList("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    + "WHERE datname = 'postgres' AND pid <> pg_backend_pid() AND backend_type = 'client backend'")));
    }

    private void runThrough(ApplicationContext context, Recorder recorder, Runnable fault) throws Exception {
        QueueTemplate template = context.getBean(QueueTemplate.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(Wakeups.class).isListening());
        Set<Long> sent = ConcurrentHashMap.newKeySet();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger n = new AtomicInteger();
        Thread producer = new Thread(() -> {
            while (producing.get()) {
                try {
                    int i = n.incrementAndGet();
                    sent.add(template.send((i % 2 == 0) ? "outage-lease" : "outage-tx", "job " + i));
                }
                catch (RuntimeException ex) {
                    failures.add(ex);
                }
            }
        });
        producer.start();
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> recorder.handled.size() >= 200);

            fault.run();

            // after the fault, sends succeed again
            int sentAtFault = sent.size();
            await().atMost(Duration.ofSeconds(60)).until(() -> sent.size() >= sentAtFault + 200);
        }
        finally {
            producing.set(false);
            producer.join();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> recorder.handled.containsAll(sent));
        assertThat(failures).allSatisfy((failure) -> assertThat(failure).isInstanceOf(DataAccessException.class));
        // the LISTEN connection and the heartbeat came back by themselves
        await().atMost(Duration.ofSeconds(20)).until(() -> context.getBean(Wakeups.class).isListening());
        Timestamp before = heartbeat(context);
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> heartbeat(context).after(before));
        assertThat(admin.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue LIKE 'outage-%' AND state = 'dead'",
                Long.class)).isZero();
        assertThat(context.getBean(QueueAdmin.class).reconcile()).isEmpty();
        System.out.println("Outage: " + sent.size() + " jobs sent and handled, " + failures.size()
                + " sends failed with " + failures.stream().map((f) -> f.getClass().getSimpleName()).distinct().toList());
    }

    private Timestamp heartbeat(ApplicationContext context) {
        Map<String, Object> node = admin.queryForMap("SELECT heartbeat_at FROM pgqueue.node WHERE id = ?",
                context.getBean(NodeRuntime.class).identity().id());
        return (Timestamp) node.get("heartbeat_at");
    }

}
