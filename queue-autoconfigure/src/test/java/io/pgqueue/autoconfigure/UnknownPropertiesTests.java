package io.pgqueue.autoconfigure;

import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * pgqueue owns the {@code pgqueue} prefix: a key under it that no setting reads fails startup, naming the key,
 * where it was set and the closest property. Before, a misspelt property started the application as if it were
 * not there ({@code pgqueue.listner.concurrency=8} left the concurrency at 4).
 */
class UnknownPropertiesTests {

    private static final TestDatabase database = TestPostgres.createDatabase(UnknownPropertiesTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.listener.auto-startup=false", "pgqueue.maintenance.enabled=false");

    @Test
    void aMisspeltPropertyFailsStartupNamingTheClosestOne() {
        runner.withPropertyValues("pgqueue.listner.concurrency=8").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("'pgqueue.listner.concurrency'")
                .hasMessageContaining("did you mean 'pgqueue.listener.concurrency'?")
                .hasMessageContaining("pgqueue.fail-on-unknown-properties=false");
        });
    }

    @Test
    void aMisspeltSettingOfOneQueueFailsStartupNamingTheSettingInThatQueue() {
        runner.withPropertyValues("pgqueue.queues.audit.max-attemps=2").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("'pgqueue.queues.audit.max-attemps'")
                .hasMessageContaining("did you mean 'pgqueue.queues.audit.max-attempts'?");
        });
    }

    @Test
    void unknownPropertiesOnlyWarnWhenAskedTo() {
        runner.withPropertyValues("pgqueue.listner.concurrency=8", "pgqueue.fail-on-unknown-properties=false")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void everyKnownKindOfKeyStarts() {
        runner.withPropertyValues("pgqueue.listener.concurrency=8", "pgqueue.queues.audit.max-attempts=2",
                "pgqueue.queues.audit.fairness.weights.tenant-a=2", "pgqueue.queues[a.b].concurrency=2",
                "pgqueue.schedules.nightly.queue=audit", "pgqueue.schedules.nightly.cron=0 0 3 * * *",
                "pgqueue.dashboard.path=/ops/queues", "pgqueue.health.max-lag=5m")
            .run((context) -> assertThat(context).hasNotFailed());
    }
}
