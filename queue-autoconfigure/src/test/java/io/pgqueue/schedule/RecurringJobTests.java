package io.pgqueue.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.pgqueue.QueueTemplate;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.persistence.ScheduleRecord;
import io.pgqueue.internal.persistence.ScheduleRepository;
import io.pgqueue.internal.schedule.RecurringJobRunner;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.ScheduleInfo;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RecurringJobTests {

    private static final TestDatabase database = TestPostgres.createDatabase(RecurringJobTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.scheduler.poll-interval=100ms");

    private final Jobs jobs = new Jobs(database.dataSource());

    @Test
    void threeContextsEnqueueExactlyOneJobPerTick() {
        ApplicationContextRunner node = runner.withPropertyValues("pgqueue.schedules.heartbeat.queue=ticks",
                "pgqueue.schedules.heartbeat.fixed-rate=1s", "pgqueue.schedules.heartbeat.payload={\"kind\":\"tick\"}");
        node.run((a) -> node.run((b) -> node.run((c) -> await().atMost(Duration.ofSeconds(30))
            .until(() -> jobs.count("ticks") >= 11))));

        List<Instant> ticks = jobs.jdbc()
            .queryForList("SELECT (headers->>'tick')::timestamptz FROM pgqueue.job WHERE queue = 'ticks' ORDER BY 1",
                    java.sql.Timestamp.class)
            .stream()
            .map(java.sql.Timestamp::toInstant)
            .toList();
        assertThat(ticks).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(11);
        for (int i = 1; i < ticks.size(); i++) {
            assertThat(Duration.between(ticks.get(i - 1), ticks.get(i))).isEqualTo(Duration.ofSeconds(1));
        }
        assertThat(jobs.jdbc().queryForObject("SELECT payload->>'kind' FROM pgqueue.job WHERE queue = 'ticks' LIMIT 1",
                String.class)).isEqualTo("tick");
    }

    @Test
    void missedTicksFireOnceOrAreSkipped() {
        runner.withPropertyValues("pgqueue.scheduler.enabled=false").run((context) -> {
            jobs.jdbc().update("DELETE FROM pgqueue.schedule");
            ScheduleRepository store = context.getBean(Repositories.class).schedules();
            RecurringJobRunner scheduler = new RecurringJobRunner(store, context.getBean(Wakeups.class),
                    context.getBean(io.pgqueue.JobPayloadCodec.class), Duration.ofMillis(100), List.of());
            Instant longAgo = store.now().minus(Duration.ofHours(3));
            store.declare(new ScheduleRecord("hourly-once", "missed-once", "0 0 * * * *", null, "UTC", null, null,
                    "FIRE_ONCE", longAgo, null, false, false));
            store.declare(new ScheduleRecord("hourly-skip", "missed-skip", "0 0 * * * *", null, "UTC", null, null,
                    "SKIP", longAgo, null, false, false));

            assertThat(scheduler.fireDue()).isEqualTo(1);

            assertThat(jobs.count("missed-once")).isOne();
            assertThat(jobs.count("missed-skip")).isZero();
            assertThat(scheduler.schedules()).allSatisfy((schedule) -> {
                assertThat(schedule.nextRunAt()).isAfter(store.now());
                assertThat(schedule.lastRunAt()).isNotNull();
            });
            // nothing is due any more
            assertThat(scheduler.fireDue()).isZero();
        });
    }

    @Test
    void recurringJobBeansAreDeclaredAndListedByTheAdmin() {
        runner.withBean(RecurringJob.class,
                () -> RecurringJob.builder("nightly").queue("reports").cron("0 0 2 * * *").payload(Map.of("report", "x"))
                    .build())
            .run((context) -> {
                List<ScheduleInfo> schedules = context.getBean(io.pgqueue.admin.QueueAdmin.class).schedules();
                assertThat(schedules).extracting(ScheduleInfo::name).contains("nightly");
                ScheduleInfo nightly = schedules.stream().filter((s) -> s.name().equals("nightly")).findFirst()
                    .orElseThrow();
                assertThat(nightly.cron()).isEqualTo("0 0 2 * * *");
                ScheduleRecord stored = context.getBean(Repositories.class).schedules().all().stream()
                    .filter((s) -> s.name().equals("nightly")).findFirst().orElseThrow();
                assertThat(stored.payloadType()).isEqualTo(Map.of("report", "x").getClass().getName());
                assertThat(nightly.nextRunAt()).isAfter(Instant.now());
            });
    }

    @Test
    void badScheduleDefinitionsFailStartupNamingTheProperty() {
        assertInvalid(List.of("pgqueue.schedules.broken.queue=q", "pgqueue.schedules.broken.cron=every minute"),
                "pgqueue.schedules.broken.cron");
        assertInvalid(List.of("pgqueue.schedules.broken.cron=0 * * * * *"), "pgqueue.schedules.broken.queue");
        assertInvalid(List.of("pgqueue.schedules.broken.queue=q", "pgqueue.schedules.broken.cron=0 * * * * *",
                "pgqueue.schedules.broken.fixed-rate=1s"), "pgqueue.schedules.broken.cron");
        assertInvalid(List.of("pgqueue.schedules.broken.queue=q", "pgqueue.schedules.broken.fixed-rate=1s",
                "pgqueue.schedules.broken.zone=Mars/Olympus"), "pgqueue.schedules.broken.zone");
    }

    private void assertInvalid(List<String> properties, String property) {
        runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageStartingWith("Property " + property + " with value");
        });
    }

    @Test
    void scheduledJobsAreEnqueuedWithTheQueueTemplateBeanPresent() {
        runner.run((context) -> assertThat(context).hasSingleBean(QueueTemplate.class)
            .hasSingleBean(QueueScheduler.class));
    }
}
