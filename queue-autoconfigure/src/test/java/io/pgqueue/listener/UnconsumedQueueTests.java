package io.pgqueue.listener;

import java.time.Duration;
import java.util.Map;

import io.pgqueue.QueueTemplate;
import io.pgqueue.actuate.PgQueueHealthIndicator;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener whose class is not a Spring bean is never found, and its jobs waited without a word (endpoint
 * {@code "listeners": []}, health UP, no log line). pgqueue now says at startup which listeners it runs (or that it
 * runs none, and why that may be), and health lists a queue whose ready jobs wait with no node listening to it,
 * logging it once; the status stays as it was.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnconsumedQueueTests {

    private static final TestDatabase database = TestPostgres.createDatabase(UnconsumedQueueTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    /** Copied from a guide without its @Component: never registered, so never found. */
    static class NotABean {

        @QueueListener(queue = "forgotten")
        void handle(String payload) {
        }
    }

    static class Invoices {

        @QueueListener(queue = "invoices", concurrency = "3")
        void handle(String payload) {
        }
    }

    @Test
    void startupSaysThatNoListenerWasFoundAndWhy(CapturedOutput output) {
        runner.run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains("pgqueue found no @QueueListener methods")
                .contains("must be a Spring bean (e.g. annotated @Component)");
        });
    }

    @Test
    void startupListsTheListenersItRuns(CapturedOutput output) {
        runner.withBean(Invoices.class).run((context) -> assertThat(output)
            .contains("pgqueue listeners (1): 'invoices' LEASE x3 " + Invoices.class.getName() + ".handle(String)"));
    }

    /**
     * A pool smaller than the listeners use at full load made queues wait for connections without a word (a pool
     * of 3 and 8 queues drained a fair queue at 3 jobs/s instead of 25): startup says so, with the size to set.
     */
    @Test
    void aPoolSmallerThanTheListenersNeedIsWarnedAboutAtStartup(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=3").withBean(Invoices.class)
            .run((context) -> assertThat(output).contains("The connection pool holds at most 3 connections, fewer than "
                    + "pgqueue's listeners use at full load (6:")
                .contains("spring.datasource.hikari.maximum-pool-size to at least 6"));
        runner.withBean(Invoices.class).run((context) -> assertThat(output.toString().split("fewer than pgqueue's", -1))
            .as("warned only for the small pool").hasSize(2));
    }

    @Test
    void healthListsAQueueWhoseReadyJobsNoNodeListensToAndLogsItOnce(CapturedOutput output) {
        runner.withBean(Invoices.class).run((context) -> {
            context.getBean(QueueTemplate.class).send("forgotten", "waits");
            PgQueueHealthIndicator indicator = new PgQueueHealthIndicator(context.getBean(QueueAdmin.class),
                    context.getBean(QueueListenerContainerRegistry.class), null, Status.OUT_OF_SERVICE,
                    Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofSeconds(1));
            await().atMost(Duration.ofSeconds(10))
                .until(() -> indicator.health().getDetails().containsKey("unattendedQueues"));
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(String.valueOf(((Map<?, ?>) health.getDetails().get("unattendedQueues")).keySet())).isEqualTo("[forgotten]");
            indicator.health();
            assertThat(output.toString().split("Queue 'forgotten' has ready jobs waiting", -1)).hasSize(2);
            assertThat(output).contains("no node listens to it: is its @QueueListener method on a Spring bean");
        });
    }
}
