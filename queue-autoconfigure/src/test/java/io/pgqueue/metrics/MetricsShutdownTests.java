package io.pgqueue.metrics;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgqueue.autoconfigure.PgQueueMetricsAutoConfiguration;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node stopping while its metrics refresh waits on the database (a lock, a slow read under load): the refresh's
 * statement is cancelled, so the stop does not wait out its 10 s bound on that thread and leave it behind
 * ("still running after 10 s"). On main the interrupt alone did not end the statement.
 */
@ExtendWith(OutputCaptureExtension.class)
class MetricsShutdownTests {

    private static final TestDatabase database = TestPostgres.createDatabase(MetricsShutdownTests.class);

    @Test
    void aRefreshWaitingOnTheDatabaseIsCancelledWhenTheNodeStops(CapturedOutput output) {
        QueueContextRunners.on(database)
            .withConfiguration(AutoConfigurations.of(PgQueueMetricsAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("pgqueue.metrics.refresh-interval=100ms", "pgqueue.maintenance.enabled=false")
            .run((context) -> {
                JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
                QueueMetrics metrics = context.getBean(QueueMetrics.class);
                try (Connection locker = database.connect(); Statement lock = locker.createStatement()) {
                    locker.setAutoCommit(false);
                    lock.execute("LOCK TABLE pgqueue.queue_counter IN ACCESS EXCLUSIVE MODE");
                    // the next refresh waits for the lock
                    await().atMost(Duration.ofSeconds(10)).until(() -> waiting(jdbc) > 0);

                    long start = System.nanoTime();
                    metrics.stop();
                    Duration stopped = Duration.ofNanos(System.nanoTime() - start);

                    assertThat(stopped).as("the stop cancelled the refresh instead of waiting out its bound")
                        .isLessThan(Duration.ofSeconds(5));
                    assertThat(waiting(jdbc)).as("statements still waiting for the lock").isZero();
                    assertThat(output).doesNotContain("still running after");
                    locker.rollback();
                }
            });
    }

    private static long waiting(JdbcTemplate jdbc) {
        Long count = jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()", Long.class);
        return (count != null) ? count : 0;
    }
}
