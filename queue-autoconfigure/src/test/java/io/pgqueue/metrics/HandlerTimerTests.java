package io.pgqueue.metrics;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.autoconfigure.PgQueueMetricsAutoConfiguration;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A handler run is timed once: by {@code pgqueue.job.duration}, or, when runs are observed, by the observation
 * {@code pgqueue.process} alone.
 */
class HandlerTimerTests {

    private static final TestDatabase database = TestPostgres.createDatabase(HandlerTimerTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withConfiguration(AutoConfigurations.of(PgQueueMetricsAutoConfiguration.class))
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    record Tick(int n) {
    }

    static class Ticks {

        final AtomicInteger runs = new AtomicInteger();

        @QueueListener(queue = "timed")
        void handle(Tick tick) {
            runs.incrementAndGet();
        }
    }

    @Test
    void withoutObservationTheTimerTimesEachRun() {
        runner.withBean(Ticks.class, Ticks::new).run((context) -> {
            context.getBean(QueueTemplate.class).send("timed", new Tick(1));
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> completed(registry) == 1);
            assertThat(registry.get("pgqueue.job.duration").tag("outcome", "success").timer().count()).isOne();
        });
    }

    @Test
    void withObservationOnlyTheObservationTimesTheRun() {
        TestObservationRegistry observations = TestObservationRegistry.create();
        runner.withPropertyValues("pgqueue.listener.observation-enabled=true")
            .withBean(TestObservationRegistry.class, () -> observations)
            .withBean(Ticks.class, Ticks::new)
            .run((context) -> {
                context.getBean(QueueTemplate.class).send("timed", new Tick(1));
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                await().atMost(Duration.ofSeconds(10)).until(() -> completed(registry) == 1);
                assertThat(registry.find("pgqueue.job.duration").timers()).isEmpty();
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> TestObservationRegistryAssert
                    .assertThat(observations).hasObservationWithNameEqualTo("pgqueue.process"));
            });
    }

    private static double completed(MeterRegistry registry) {
        Counter completed = registry.find("pgqueue.jobs.completed").counter();
        return (completed != null) ? completed.count() : 0;
    }
}
