package io.pgqueue.test;

import java.time.Duration;
import java.util.Map;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link QueueTestSupport} sees every queue where it lives: in the application's database, and in a further
 * database of {@code pgqueue.databases}.
 */
class QueueTestSupportTests {

    private static final TestDatabase database = TestPostgres.createDatabase(QueueTestSupportTests.class);

    private static final TestDatabase reporting = TestPostgres.createDatabase("queue_test_support_reporting");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                PgQueueAutoConfiguration.class))
        .withPropertyValues(database.springProperties())
        .withPropertyValues("pgqueue.databases.reporting.url=" + reporting.jdbcUrl(),
                "pgqueue.databases.reporting.username=" + reporting.username(),
                "pgqueue.databases.reporting.password=" + reporting.password(),
                "pgqueue.databases.reporting.id-block=1", "pgqueue.databases.reporting.queues=reports");

    @Test
    void pendingJobsAreCountedInTheDatabaseTheirQueueLivesIn() {
        runner.run((context) -> {
            assertThat(context).hasNotFailed();
            QueueTestSupport queues = QueueTestSupport.of(context);
            long report = context.getBean(QueueTemplate.class).send("reports", Map.of("month", "2026-10"));
            context.getBean(QueueTemplate.class).send("emails", Map.of("to", "a@example.com"));

            assertThat(queues.pending("reports")).isEqualTo(1);
            assertThat(queues.pending("emails")).isEqualTo(1);
            assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> queues.awaitDrained("reports", Duration.ofMillis(100)))
                .withMessageContaining("Queue 'reports' still has 1 pending job(s)");
            assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> queues.awaitAllDrained(Duration.ofMillis(100)))
                .withMessageContaining("emails")
                .withMessageContaining("reports");

            QueueAdmin admin = context.getBean(QueueAdmin.class);
            admin.cancel(report);
            queues.awaitDrained("reports", Duration.ofSeconds(1));
            assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> queues.awaitAllDrained(Duration.ofMillis(100)))
                .withMessageContaining("[emails]");
        });
    }

    /** Tests isolated from each other: one queue emptied, or every queue of every database. */
    @Test
    void purgeEmptiesAQueueOrEveryQueueAndKeepsTheCountersExact() {
        runner.run((context) -> {
            QueueTestSupport queues = QueueTestSupport.of(context);
            QueueTemplate template = context.getBean(QueueTemplate.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            template.send("emails", "a", io.pgqueue.SendOptions.builder().dedupKey("welcome-7").build());
            template.send("invoices", "b");
            template.send("reports", "c");

            queues.purge("emails");
            assertThat(queues.pending("emails")).isZero();
            assertThat(queues.pending("invoices")).isEqualTo(1);
            assertThat(admin.queue("emails").map((queue) -> queue.counts().ready()).orElse(0L)).isZero();
            // the dedup key is free again for the next test
            assertThat(template.send("emails", "a", io.pgqueue.SendOptions.builder().dedupKey("welcome-7").build())
                .created()).isTrue();

            queues.purgeAll();
            assertThat(queues.pending("emails") + queues.pending("invoices") + queues.pending("reports")).isZero();
            assertThat(admin.reconcile()).isEmpty();
        });
    }
}
