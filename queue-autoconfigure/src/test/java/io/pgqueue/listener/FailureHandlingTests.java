package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.error.FailureDecision;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class FailureHandlingTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FailureHandlingTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    private final Jobs jobs = new Jobs(database.dataSource());

    record Reading(long accountId, long kwh) {
    }

    @BeforeAll
    static void createBusinessTable() {
        new JdbcTemplate(database.dataSource()).execute("CREATE TABLE reading (account_id bigint, kwh bigint)");
    }

    @Test
    void transactionalHandlerThatWritesThenThrowsCommitsNeitherRowNorAcknowledgement() {
        runner.withPropertyValues("pgqueue.queues.tx-fail.backoff.initial=1h", "pgqueue.queues.tx-fail.backoff.max=2h")
            .withUserConfiguration(FailingTransactionalWriter.class)
            .run((context) -> {
                Instant sentAt = Instant.now();
                long id = context.getBean(QueueTemplate.class).send("tx-fail", new Reading(7, 3));

                await().atMost(Duration.ofSeconds(10)).until(() -> (int) jobs.row(id).get("attempts") == 1);

                Map<String, Object> row = jobs.row(id);
                assertThat(row.get("state")).isEqualTo("scheduled");
                assertThat(((java.sql.Timestamp) row.get("run_at")).toInstant())
                    .isAfter(sentAt.plus(Duration.ofMinutes(50)));
                assertThat((String) row.get("last_error")).contains("meter offline");
                assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM reading", Long.class)).isZero();
            });
    }

    @Test
    void alwaysFailingJobIsDeadAfterExactlyMaxAttemptsWithGrowingBackoff() {
        AtomicInteger calls = new AtomicInteger();
        List<FailureDecision> decisions = new CopyOnWriteArrayList<>();
        List<Instant> attemptTimes = new CopyOnWriteArrayList<>();
        runner
            .withPropertyValues("pgqueue.queues.doomed.max-attempts=4", "pgqueue.queues.doomed.backoff.initial=100ms",
                    "pgqueue.queues.doomed.backoff.multiplier=3", "pgqueue.queues.doomed.poll-interval=50ms")
            .withBean(AlwaysFailing.class, () -> new AlwaysFailing(calls, attemptTimes))
            .withBean(JobObserver.class, () -> new JobObserver() {
                @Override
                public void failed(JobContext job, Duration duration, Throwable error, FailureDecision decision) {
                    decisions.add(decision);
                }
            })
            .run((context) -> {
                long id = context.getBean(QueueTemplate.class).send("doomed", new Reading(1, 1));

                await().atMost(Duration.ofSeconds(15)).until(() -> "dead".equals(jobs.row(id).get("state")));

                Map<String, Object> row = jobs.row(id);
                assertThat(row.get("attempts")).isEqualTo(4);
                assertThat((String) row.get("last_error")).startsWith("Failed 4 of 4 attempts")
                    .contains("always broken");
                assertThat(calls).hasValue(4);
                assertThat(decisions).extracting(FailureDecision::retryDelay)
                    .containsExactly(Duration.ofMillis(100), Duration.ofMillis(300), Duration.ofMillis(900), null);
                // each retry waited at least its backoff
                assertThat(Duration.between(attemptTimes.get(0), attemptTimes.get(1))).isGreaterThanOrEqualTo(
                        Duration.ofMillis(100));
                assertThat(Duration.between(attemptTimes.get(1), attemptTimes.get(2))).isGreaterThanOrEqualTo(
                        Duration.ofMillis(300));
                assertThat(Duration.between(attemptTimes.get(2), attemptTimes.get(3))).isGreaterThanOrEqualTo(
                        Duration.ofMillis(900));
            });
    }

    @Test
    void retriedJobSucceedsOnALaterAttempt() {
        AtomicInteger calls = new AtomicInteger();
        runner.withBean(FlakyOnce.class, () -> new FlakyOnce(calls)).run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("flaky", new Reading(2, 2));

            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("flaky") == 0);

            assertThat(calls).hasValue(2);
        });
    }

    @Test
    void poisonPayloadIsDeadAfterOneAttemptAndTheJobsBehindItRun() {
        List<Long> handled = new CopyOnWriteArrayList<>();
        runner.withPropertyValues("pgqueue.queues.meter.concurrency=1", "pgqueue.queues.meter.batch-size=1")
            .withBean(ReadingRecorder.class, () -> new ReadingRecorder(handled))
            .run((context) -> {
                long poison = jobs.insertRaw("meter", "{\"accountId\": \"not a number\", \"kwh\": 1}",
                        Reading.class.getName());
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.send("meter", new Reading(10, 1));
                template.send("meter", new Reading(11, 1));

                await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 2);
                await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(poison).get("state")));

                Map<String, Object> row = jobs.row(poison);
                assertThat(row.get("attempts")).isEqualTo(1);
                assertThat((String) row.get("last_error")).startsWith("Not retryable")
                    .contains("(sent as " + Reading.class.getName() + ") cannot be read as " + Reading.class.getName());
                assertThat(handled).containsExactlyInAnyOrder(10L, 11L);
            });
    }

    @Test
    void notRetryableExceptionTypeGoesDeadAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        runner.withPropertyValues("pgqueue.listener.not-retryable=java.lang.IllegalArgumentException")
            .withBean(RejectsInput.class, () -> new RejectsInput(calls))
            .run((context) -> {
                long id = context.getBean(QueueTemplate.class).send("strict", new Reading(3, 3));

                await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(id).get("state")));

                assertThat(calls).hasValue(1);
                assertThat((String) jobs.row(id).get("last_error"))
                    .startsWith("Not retryable: java.lang.IllegalArgumentException: bad reading");
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingTransactionalWriter {

        @Bean
        TransactionalWriter transactionalWriter(DataSource dataSource) {
            return new TransactionalWriter(new JdbcTemplate(dataSource));
        }
    }

    static class TransactionalWriter {

        private final JdbcTemplate jdbc;

        TransactionalWriter(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @QueueListener(queue = "tx-fail", mode = "TRANSACTIONAL")
        void handle(Reading reading) {
            jdbc.update("INSERT INTO reading (account_id, kwh) VALUES (?, ?)", reading.accountId(), reading.kwh());
            throw new IllegalStateException("meter offline");
        }
    }

    static class AlwaysFailing {

        private final AtomicInteger calls;

        private final List<Instant> attemptTimes;

        AlwaysFailing(AtomicInteger calls, List<Instant> attemptTimes) {
            this.calls = calls;
            this.attemptTimes = attemptTimes;
        }

        @QueueListener(queue = "doomed")
        void handle(Reading reading, JobContext job) {
            attemptTimes.add(Instant.now());
            calls.incrementAndGet();
            throw new IllegalStateException("always broken (attempt " + job.attempt() + ")");
        }
    }

    static class FlakyOnce {

        private final AtomicInteger calls;

        FlakyOnce(AtomicInteger calls) {
            this.calls = calls;
        }

        @QueueListener(queue = "flaky")
        void handle(Reading reading) {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("first time fails");
            }
        }
    }

    static class ReadingRecorder {

        private final List<Long> handled;

        ReadingRecorder(List<Long> handled) {
            this.handled = handled;
        }

        @QueueListener(queue = "meter")
        void handle(Reading reading) {
            handled.add(reading.accountId());
        }
    }

    static class RejectsInput {

        private final AtomicInteger calls;

        RejectsInput(AtomicInteger calls) {
            this.calls = calls;
        }

        @QueueListener(queue = "strict")
        void handle(Reading reading) {
            calls.incrementAndGet();
            throw new IllegalArgumentException("bad reading");
        }
    }
}
