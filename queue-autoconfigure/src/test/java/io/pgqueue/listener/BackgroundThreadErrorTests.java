package io.pgqueue.listener;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.metrics.QueueMetrics;
import io.pgqueue.support.FaultInjectingDataSource;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each of pgqueue's background threads meets an {@link Error} from the database layer once, then keeps doing
 * its work: the idle poller, maintenance, the recurring-job scheduler, the metrics refresh, the
 * acknowledgement flusher and the LISTEN thread. Before, each of them died (or its periodic task was silently
 * cancelled) while health stayed UP.
 */
class BackgroundThreadErrorTests {

    private static final TestDatabase database = TestPostgres.createDatabase(BackgroundThreadErrorTests.class);

    private final Jobs jobs = new Jobs(database.dataSource());

    private HikariDataSource pool;

    private FaultInjectingDataSource faulty;

    private ApplicationContextRunner runner;

    @BeforeEach
    void faultyDataSource() {
        pool = QueueContextRunners.pool(database);
        pool.setMaximumPoolSize(10);
        faulty = new FaultInjectingDataSource(pool);
        runner = QueueContextRunners.fastListeners(database).withBean(javax.sql.DataSource.class, () -> faulty);
    }

    @AfterEach
    void closePool() {
        pool.close();
    }

    static class Handled {

        final Set<Object> payloads = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "idle-poller")
        void idle(String payload) {
            payloads.add(payload);
        }
    }

    static class Acknowledged {

        final Set<Object> payloads = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "acks", concurrency = "4")
        void handle(Integer payload) {
            payloads.add(payload);
        }
    }

    static class Notified {

        final Set<Object> payloads = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "notified")
        void handle(String payload) {
            payloads.add(payload);
        }
    }

    @Test
    void theIdlePollerOutlivesAnError() {
        Handled handled = new Handled();
        // maintenance at least as often as the container polls: idle containers park with the node's idle poller
        runner.withPropertyValues("pgqueue.maintenance.interval=100ms", "pgqueue.listener.notify=false")
            .withBean(Handled.class, () -> handled)
            .run((context) -> {
                faulty.failNext(1, (sql) -> sql.contains("AS q(queue)"));
                await().atMost(Duration.ofSeconds(10)).until(() -> faulty.thrown() == 1);
                jobs.insertRaw("idle-poller", "\"after the error\"", null);
                // well within the 30 s safety poll a parked container would fall back to
                await().atMost(Duration.ofSeconds(5)).until(() -> handled.payloads.contains("after the error"));
            });
    }

    @Test
    void maintenanceOutlivesAnError() {
        runner.withPropertyValues("pgqueue.maintenance.interval=100ms").run((context) -> {
            faulty.failNext(1, (sql) -> sql.contains("promoted AS") && !sql.contains("queue = ?"));
            await().atMost(Duration.ofSeconds(10)).until(() -> faulty.thrown() == 1);
            long id = context.getBean(QueueTemplate.class)
                .send("promoted-later", "x", SendOptions.builder().delay(Duration.ofMillis(200)).build())
                .jobId();
            await().atMost(Duration.ofSeconds(5)).until(() -> "ready".equals(jobs.row(id).get("state")));
        });
    }

    @Test
    void theSchedulerOutlivesAnError() {
        runner.withPropertyValues("pgqueue.scheduler.poll-interval=100ms", "pgqueue.schedules.often.queue=often",
                "pgqueue.schedules.often.fixed-rate=200ms", "pgqueue.maintenance.enabled=false")
            .run((context) -> {
                faulty.failNext(1, (sql) -> sql.contains("schedule WHERE next_run_at <= now()"));
                await().atMost(Duration.ofSeconds(10)).until(() -> faulty.thrown() == 1);
                long before = jobs.count("often");
                await().atMost(Duration.ofSeconds(5)).until(() -> jobs.count("often") >= before + 2);
            });
    }

    @Test
    void theMetricsRefreshOutlivesAnError() {
        runner.withPropertyValues("pgqueue.maintenance.enabled=false").run((context) -> {
            QueueMetrics metrics = new QueueMetrics(context.getBean(QueueAdmin.class), Duration.ofMillis(100));
            metrics.start();
            try {
                faulty.failNext(1, (sql) -> sql.contains("queue_counter_delta) AS counts"));
                await().atMost(Duration.ofSeconds(10)).until(() -> faulty.thrown() == 1);
                context.getBean(QueueTemplate.class).send("metered", "x");
                await().atMost(Duration.ofSeconds(5)).until(() -> metrics.snapshot().containsKey("metered"));
            }
            finally {
                metrics.stop();
            }
        });
    }

    @Test
    void theAcknowledgementFlusherOutlivesAnError() {
        Acknowledged handled = new Acknowledged();
        runner.withBean(Acknowledged.class, () -> handled).run((context) -> {
            faulty.failNext(1, (sql) -> sql.contains("WITH done AS"));
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.send("acks", 0);
            await().atMost(Duration.ofSeconds(10)).until(() -> faulty.thrown() == 1);
            for (int i = 1; i <= 20; i++) {
                template.send("acks", i);
            }
            // the job whose acknowledgement failed is rescued when its lease ends and runs again; the rest are
            // acknowledged as usual
            await().atMost(Duration.ofSeconds(15)).until(() -> jobs.count("acks") == 0);
            assertThat(handled.payloads).hasSize(21);
            assertThat(context.getBean(QueueListenerContainerRegistry.class).getListenerContainers())
                .allSatisfy((container) -> assertThat(container.isRunning()).isTrue());
        });
    }

    @Test
    void theListenThreadOutlivesAnError() {
        Notified handled = new Notified();
        faulty.failNext(1, (sql) -> sql.startsWith("LISTEN"));
        // without maintenance no container parks, and a poll every 30 s: only a NOTIFY brings the job in time
        runner.withPropertyValues("pgqueue.maintenance.enabled=false", "pgqueue.listener.poll-interval=30s")
            .withBean(Notified.class, () -> handled)
            .run((context) -> {
                await().atMost(Duration.ofSeconds(10)).until(() -> faulty.thrown() == 1);
                await().atMost(Duration.ofSeconds(10)).until(() -> activeListeners() == 1);
                context.getBean(QueueTemplate.class).send("notified", "after the error");
                await().atMost(Duration.ofSeconds(5)).until(() -> handled.payloads.contains("after the error"));
            });
    }

    private long activeListeners() {
        return jobs.jdbc().queryForObject("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND query LIKE 'LISTEN %'", Long.class);
    }
}
