package io.pgqueue.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.schedule.RecurringJobRunner;
import io.pgqueue.model.ScheduleInfo;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Recurring jobs operated at run time, cluster-wide: trigger now (exactly once however many nodes are asked),
 * pause and resume (kept across restarts), reschedule (kept over the declared definition), remove.
 */
class ScheduleControlTests {

    private static final TestDatabase database = TestPostgres.createDatabase(ScheduleControlTests.class);

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    /** A node declaring a yearly schedule (it never ticks during the test) and a fast one. */
    private final ApplicationContextRunner node = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.scheduler.poll-interval=100ms", "pgqueue.schedules.yearly.queue=yearly",
                "pgqueue.schedules.yearly.cron=0 0 0 1 1 *", "pgqueue.schedules.often.queue=often",
                "pgqueue.schedules.often.fixed-rate=200ms");

    @Test
    void triggeringAScheduleFromTwoNodesAtOnceMakesExactlyOneJob() throws Exception {
        node.run((a) -> node.run((b) -> {
            QueueAdmin first = a.getBean(QueueAdmin.class);
            QueueAdmin second = b.getBean(QueueAdmin.class);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                for (int round = 1; round <= 5; round++) {
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<Boolean>> triggers = new ArrayList<>();
                    for (QueueAdmin admin : List.of(first, second)) {
                        triggers.add(pool.submit(() -> {
                            go.await();
                            return admin.triggerSchedule("yearly");
                        }));
                    }
                    go.countDown();
                    int won = 0;
                    for (Future<Boolean> trigger : triggers) {
                        won += trigger.get(10, TimeUnit.SECONDS) ? 1 : 0;
                    }
                    assertThat(won).as("triggers that enqueued, round " + round).isEqualTo(1);
                    assertThat(jobs("yearly")).as("jobs after round " + round).isEqualTo(1);
                    // the job ran (here: is taken away), and the trigger's window has passed: a new trigger
                    jdbc.update("DELETE FROM pgqueue.job WHERE queue = 'yearly' AND dedup_key IS NOT NULL");
                    jdbc.update("UPDATE pgqueue.dedup_window SET expires_at = now() - interval '1 second'");
                }
            }
            finally {
                pool.shutdownNow();
            }
            ScheduleInfo yearly = schedule(first, "yearly");
            assertThat(yearly.nextRunAt()).as("the regular tick is unchanged").isAfter(Instant.now().plus(Duration.ofDays(1)));
            assertThat(yearly.lastRunAt()).isNotNull();
        }));
    }

    @Test
    void aSchedulePausedAtRunTimeStaysPausedAcrossRestartsWhileConfigurationDeclaresIt() {
        node.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> jobs("often") >= 1);
            admin.pauseSchedule("often");
            assertThat(schedule(admin, "often").paused()).isTrue();
        });
        long before = jobs("often");
        node.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            RecurringJobRunner scheduler = context.getBean(RecurringJobRunner.class);
            assertThat(schedule(admin, "often").paused()).as("paused after a restart").isTrue();
            // ticks are due every 200 ms: a paused schedule fires none of them
            await().atMost(Duration.ofSeconds(2)).until(() -> jdbc.queryForObject(
                    "SELECT next_run_at < now() FROM pgqueue.schedule WHERE name = 'often'", Boolean.class));
            assertThat(scheduler.fireDue()).isZero();
            assertThat(jobs("often")).isEqualTo(before);

            admin.resumeSchedule("often");
            assertThat(schedule(admin, "often").paused()).isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> jobs("often") > before);
        });
    }

    @Test
    void aScheduleRescheduledAtRunTimeKeepsItsNewRateOverTheDeclaredOne() {
        node.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            admin.rescheduleFixedRate("yearly", Duration.ofHours(2));
            assertThat(schedule(admin, "yearly").fixedRate()).isEqualTo(Duration.ofHours(2));
            assertThat(schedule(admin, "yearly").cron()).isNull();
            assertThat(schedule(admin, "yearly").overridden()).isTrue();
        });
        node.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            ScheduleInfo yearly = schedule(admin, "yearly");
            assertThat(yearly.fixedRate()).as("after a restart that declares the cron again").isEqualTo(Duration.ofHours(2));
            assertThat(yearly.nextRunAt()).isBefore(Instant.now().plus(Duration.ofHours(2).plusMinutes(1)));

            admin.rescheduleCron("yearly", "0 30 4 * * *");
            assertThat(schedule(admin, "yearly").cron()).isEqualTo("0 30 4 * * *");
            assertThatIllegalArgumentException().isThrownBy(() -> admin.rescheduleCron("yearly", "every minute"))
                .withMessageContaining("invalid cron expression 'every minute'");
            assertThatIllegalArgumentException().isThrownBy(() -> admin.triggerSchedule("no-such-schedule"))
                .withMessageContaining("No recurring job named 'no-such-schedule'");
            assertThatIllegalArgumentException().isThrownBy(() -> admin.pauseSchedule("no-such-schedule"))
                .withMessageContaining("No recurring job named 'no-such-schedule'");

            assertThat(admin.removeSchedule("yearly")).isTrue();
            assertThat(admin.schedules()).extracting(ScheduleInfo::name).doesNotContain("yearly");
        });
    }

    private static ScheduleInfo schedule(QueueAdmin admin, String name) {
        return admin.schedules().stream().filter((s) -> s.name().equals(name)).findFirst().orElseThrow();
    }

    private long jobs(String queue) {
        return jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ?", Long.class, queue);
    }
}
