package io.pgqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.pgqueue.QueueTemplate;
import io.pgqueue.actuate.PgQueueHealthIndicator;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.Containers;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Handlers that ignore interrupts (a socket read without timeout, a long JDBC call): interrupted for their
 * timeout or cancellation, they go on. Past the grace period their LEASE jobs' leases are no longer renewed, so
 * the job is rescued and its attempt counted (or, cancelled, finishes as cancelled), and health lists the stuck
 * runs. Before, such a job's lease was renewed for as long as the process lived.
 */
class StuckHandlerTests {

    private static final TestDatabase database = TestPostgres.createDatabase(StuckHandlerTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.interrupt-grace=500ms", "pgqueue.listener.max-attempts=1",
                "pgqueue.history.enabled=true");

    private final Jobs jobs = new Jobs(database.dataSource());

    static class Deaf {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @QueueListener(queue = "deaf-timeout", timeout = "300ms")
        void timesOut(String payload) {
            ignoreInterrupts();
        }

        @QueueListener(queue = "deaf-cancel")
        void cancelled(String payload) {
            ignoreInterrupts();
        }

        @QueueListener(queue = "deaf-tx", mode = "TRANSACTIONAL", timeout = "300ms")
        void transactional(String payload) {
            ignoreInterrupts();
        }

        private void ignoreInterrupts() {
            started.countDown();
            while (true) {
                try {
                    if (release.await(30, TimeUnit.SECONDS)) {
                        return;
                    }
                }
                catch (InterruptedException ignored) {
                    // deaf: as a blocking socket read is
                }
            }
        }
    }

    @Test
    void aLeaseHandlerThatIgnoresItsTimeoutLosesItsLeaseAndTheAttemptIsCounted() {
        Deaf deaf = new Deaf();
        runner.withBean(Deaf.class, () -> deaf).run((context) -> {
            try {
                long id = context.getBean(QueueTemplate.class).send("deaf-timeout", "x");
                assertThat(deaf.started.await(10, TimeUnit.SECONDS)).isTrue();
                await().atMost(Duration.ofSeconds(5)).until(() -> Containers.of(context, "deaf-timeout").stuckRuns() == 1);
                assertThat(health(context).getDetails()).containsKey("stuckRuns");

                await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(id).get("state")));
                Map<String, Object> row = jobs.row(id);
                assertThat(row.get("attempts")).isEqualTo(1);
                assertThat((String) row.get("last_error")).contains("lease expired");
            }
            finally {
                deaf.release.countDown();
            }
        });
    }

    @Test
    void aLeaseHandlerThatIgnoresItsCancellationLosesItsLeaseAndTheJobFinishesCancelled() {
        Deaf deaf = new Deaf();
        runner.withBean(Deaf.class, () -> deaf).run((context) -> {
            try {
                long id = context.getBean(QueueTemplate.class).send("deaf-cancel", "x");
                assertThat(deaf.started.await(10, TimeUnit.SECONDS)).isTrue();
                context.getBean(QueueAdmin.class).cancel(id);

                await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("deaf-cancel") == 0);
                assertThat(jobs.jdbc().queryForObject("SELECT state FROM pgqueue.job_history WHERE id = ?", String.class,
                        id)).isEqualTo("cancelled");
            }
            finally {
                deaf.release.countDown();
            }
        });
    }

    @Test
    void aTransactionalHandlerThatIgnoresItsTimeoutIsReportedStuck() {
        Deaf deaf = new Deaf();
        runner.withBean(Deaf.class, () -> deaf).run((context) -> {
            try {
                context.getBean(QueueTemplate.class).send("deaf-tx", "x");
                assertThat(deaf.started.await(10, TimeUnit.SECONDS)).isTrue();
                await().atMost(Duration.ofSeconds(5)).until(() -> Containers.of(context, "deaf-tx").stuckRuns() == 1);
                assertThat(health(context).getDetails().get("stuckRuns")).asString().contains("deaf-tx");
            }
            finally {
                deaf.release.countDown();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> Containers.of(context, "deaf-tx").stuckRuns() == 0);
        });
    }

    /** The first attempt ignores its timeout until released; the second runs until released. */
    static class Rerun {

        final java.util.List<Integer> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();

        final CountDownLatch secondStarted = new CountDownLatch(1);

        final CountDownLatch releaseFirst = new CountDownLatch(1);

        final CountDownLatch releaseSecond = new CountDownLatch(1);

        @QueueListener(queue = "deaf-rerun", timeout = "3s", concurrency = "2", maxAttempts = "3")
        void handle(String payload, JobContext job) throws InterruptedException {
            attempts.add(job.attempt());
            if (job.attempt() == 1) {
                while (true) {
                    try {
                        if (releaseFirst.await(30, TimeUnit.SECONDS)) {
                            return;
                        }
                    }
                    catch (InterruptedException ignored) {
                        // deaf
                    }
                }
            }
            secondStarted.countDown();
            releaseSecond.await(2500, TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void aStuckRunThatEndsAfterItsJobRunsAgainHereLeavesTheNewAttemptsLeaseAlone() {
        Rerun rerun = new Rerun();
        runner.withPropertyValues("pgqueue.listener.interrupt-grace=200ms", "pgqueue.listener.lease-duration=1s")
            .withBean(Rerun.class, () -> rerun)
            .run((context) -> {
                try {
                    long id = context.getBean(QueueTemplate.class).send("deaf-rerun", "x");
                    // attempt 1 times out, is stuck, loses its lease and is rescued; this node runs attempt 2
                    assertThat(rerun.secondStarted.await(20, TimeUnit.SECONDS)).isTrue();
                    rerun.releaseFirst.countDown();
                    // the stuck run's end must not stop the renewal of attempt 2's one-second lease
                    await().during(Duration.ofMillis(1800)).atMost(Duration.ofSeconds(3)).until(() -> {
                        Map<String, Object> row = jobs.row(id);
                        return "running".equals(row.get("state")) && (int) row.get("attempts") == 2;
                    });
                    rerun.releaseSecond.countDown();
                    await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("deaf-rerun") == 0);
                    assertThat(rerun.attempts).containsExactly(1, 2);
                }
                finally {
                    rerun.releaseFirst.countDown();
                    rerun.releaseSecond.countDown();
                }
            });
    }

    private static Health health(ApplicationContext context) {
        return new PgQueueHealthIndicator(context.getBean(QueueAdmin.class),
                context.getBean(QueueListenerContainerRegistry.class), null, Status.UP).health();
    }
}
