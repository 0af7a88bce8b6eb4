package io.pgqueue.listener;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A TRANSACTIONAL claim's transaction begins before its handlers run, and PostgreSQL's {@code now()} is that
 * start for every statement in it. What a long handler leaves is dated when it ended, not when it was claimed:
 * its history row (and so the partition it lands in), the backoff of its retry, its time of death, its snooze.
 * Before, each was dated at the claim (a 1.5 s handler finished "before" it ended, and a retry after 1 s of
 * backoff was due before the handler had even failed).
 */
class LongTransactionalHandlerTests {

    private static final TestDatabase database = TestPostgres.createDatabase(LongTransactionalHandlerTests.class);

    /** Longer than the second after which a history row is dated again. */
    private static final long HANDLER_MILLIS = 1500;

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.backoff.initial=1s", "pgqueue.listener.backoff.jitter=0",
                "pgqueue.history.enabled=true");

    private final Jobs jobs = new Jobs(database.dataSource());

    /** Each handler takes {@link #HANDLER_MILLIS}, then notes the database's clock as it returns or throws. */
    static class LongHandlers {

        final Map<String, Instant> endedAt = new ConcurrentHashMap<>();

        private final JdbcTemplate jdbc;

        LongHandlers(javax.sql.DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        @QueueListener(queue = "long-complete", mode = "TRANSACTIONAL", batchSize = "2")
        void complete(String payload) throws InterruptedException {
            work(payload);
        }

        @QueueListener(queue = "long-fail", mode = "TRANSACTIONAL", maxAttempts = "3")
        void fail(String payload) throws InterruptedException {
            work(payload);
            throw new IllegalStateException("failed after a long run");
        }

        @QueueListener(queue = "long-die", mode = "TRANSACTIONAL", maxAttempts = "1")
        void die(String payload) throws InterruptedException {
            work(payload);
            throw new IllegalStateException("died after a long run");
        }

        @QueueListener(queue = "long-snooze", mode = "TRANSACTIONAL")
        void snooze(String payload) throws InterruptedException {
            work(payload);
            throw new SnoozeException(Duration.ofSeconds(30));
        }

        private void work(String payload) throws InterruptedException {
            // the long job itself, not a wait for something else
            Thread.sleep(HANDLER_MILLIS);
            endedAt.put(payload, jdbc.queryForObject("SELECT clock_timestamp()", Timestamp.class).toInstant());
        }
    }

    @Test
    void eachHistoryRowOfAClaimIsDatedWhenItsOwnHandlerFinished() {
        runner.withPropertyValues("pgqueue.listener.auto-startup=false").withBean(LongHandlers.class).run((context) -> {
            LongHandlers handlers = context.getBean(LongHandlers.class);
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long first = template.send("long-complete", "first");
            long second = template.send("long-complete", "second");
            // both ready before the listener starts: one claim takes the two
            context.getBean(QueueListenerContainerRegistry.class).start();

            await().atMost(Duration.ofSeconds(20)).until(() -> historyRow(second) != null);
            Map<String, Object> firstRow = historyRow(first);
            Map<String, Object> secondRow = historyRow(second);
            // one claim of two: both attempted at its start, each finished at its own end
            assertThat(firstRow.get("attempted_at")).isEqualTo(secondRow.get("attempted_at"));
            assertThat(instant(firstRow, "finished_at")).isAfterOrEqualTo(handlers.endedAt.get("first"))
                .isBefore(handlers.endedAt.get("second"));
            assertThat(instant(secondRow, "finished_at")).isAfterOrEqualTo(handlers.endedAt.get("second"));
            assertThat(Duration.between(instant(firstRow, "attempted_at"), instant(secondRow, "finished_at")))
                .isGreaterThanOrEqualTo(Duration.ofMillis(2 * HANDLER_MILLIS));
        });
    }

    @Test
    void aRetryBackoffADeathAndASnoozeCountFromTheEndOfTheHandler() {
        runner.withBean(LongHandlers.class).run((context) -> {
            LongHandlers handlers = context.getBean(LongHandlers.class);
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long failed = template.send("long-fail", "fail");
            long dead = template.send("long-die", "die");
            long snoozed = template.send("long-snooze", "snooze");

            await().atMost(Duration.ofSeconds(20)).until(() -> "scheduled".equals(jobs.row(failed).get("state"))
                    && "dead".equals(jobs.row(dead).get("state")) && "scheduled".equals(jobs.row(snoozed).get("state")));

            // backoff.initial = 1s without jitter: the retry is due a second after the failure, not after the claim
            assertThat(instant(jobs.row(failed), "run_at"))
                .isAfterOrEqualTo(handlers.endedAt.get("fail").plus(Duration.ofSeconds(1)));
            assertThat(instant(jobs.row(dead), "dead_at")).isAfterOrEqualTo(handlers.endedAt.get("die"));
            assertThat(instant(jobs.row(snoozed), "run_at"))
                .isAfterOrEqualTo(handlers.endedAt.get("snooze").plus(Duration.ofSeconds(30)));
        });
    }

    private Map<String, Object> historyRow(long id) {
        return jobs.jdbc().queryForList("SELECT * FROM pgqueue.job_history WHERE id = ?", id).stream().findFirst().orElse(null);
    }

    private static Instant instant(Map<String, Object> row, String column) {
        return ((Timestamp) row.get(column)).toInstant();
    }
}
