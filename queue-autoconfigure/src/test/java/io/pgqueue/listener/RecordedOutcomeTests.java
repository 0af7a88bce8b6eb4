package io.pgqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a run leaves must be recordable whatever the handler did: a debounced job that fails or snoozes while a
 * newer job of its key waits, an output or a progress message with a NUL character, a return value Jackson
 * cannot write. Before, each of these made the recording statement fail, so the job ran again (uncounted in
 * TRANSACTIONAL mode) or the node's heartbeats failed.
 */
class RecordedOutcomeTests {

    private static final TestDatabase database = TestPostgres.createDatabase(RecordedOutcomeTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.backoff.initial=1h", "pgqueue.listener.backoff.max=2h");

    private final Jobs jobs = new Jobs(database.dataSource());

    /** Fails (or snoozes) the first debounced job once the test has sent a newer one with the same key. */
    static class DebouncedHandler {

        final CountDownLatch running = new CountDownLatch(2);

        final CountDownLatch newerSent = new CountDownLatch(1);

        @QueueListener(queue = "debounce-tx-fail", mode = "TRANSACTIONAL")
        void transactionalFail(String payload) throws InterruptedException {
            fail(payload);
        }

        @QueueListener(queue = "debounce-lease-fail")
        void leaseFail(String payload) throws InterruptedException {
            fail(payload);
        }

        @QueueListener(queue = "debounce-tx-snooze", mode = "TRANSACTIONAL")
        void transactionalSnooze(String payload) throws InterruptedException {
            snooze(payload);
        }

        @QueueListener(queue = "debounce-lease-snooze")
        void leaseSnooze(String payload) throws InterruptedException {
            snooze(payload);
        }

        private void fail(String payload) throws InterruptedException {
            waitForNewer(payload);
            throw new IllegalStateException("the real error of " + payload);
        }

        private void snooze(String payload) throws InterruptedException {
            waitForNewer(payload);
            throw new SnoozeException(Duration.ofHours(1));
        }

        private void waitForNewer(String payload) throws InterruptedException {
            if (payload.startsWith("first")) {
                running.countDown();
                assertThat(newerSent.await(20, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    @Test
    void aDebouncedJobThatFailsWhileANewerOneOfItsKeyWaitsRecordsItsFailure() {
        DebouncedHandler handler = new DebouncedHandler();
        runner.withBean(DebouncedHandler.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long tx = debounced(template, "debounce-tx-fail", "first-tx");
            long lease = debounced(template, "debounce-lease-fail", "first-lease");
            assertThat(handler.running.await(20, TimeUnit.SECONDS)).isTrue();
            long newerTx = template.send("debounce-tx-fail", "second",
                    SendOptions.builder().debounce("account-7", Duration.ofHours(1)).build()).jobId();
            long newerLease = template.send("debounce-lease-fail", "second",
                    SendOptions.builder().debounce("account-7", Duration.ofHours(1)).build()).jobId();
            assertThat(newerTx).isNotEqualTo(tx);
            assertThat(newerLease).isNotEqualTo(lease);
            handler.newerSent.countDown();

            for (long id : new long[] { tx, lease }) {
                await().atMost(Duration.ofSeconds(10)).until(() -> "scheduled".equals(jobs.row(id).get("state")));
                Map<String, Object> row = jobs.row(id);
                assertThat(row.get("attempts")).isEqualTo(1);
                assertThat((String) row.get("last_error")).contains("the real error of first");
            }
            assertThat(jobs.row(newerTx).get("state")).isEqualTo("scheduled");
            assertThat(jobs.row(newerLease).get("state")).isEqualTo("scheduled");
        });
    }

    @Test
    void aDebouncedJobThatSnoozesWhileANewerOneOfItsKeyWaitsIsPutOff() {
        DebouncedHandler handler = new DebouncedHandler();
        runner.withBean(DebouncedHandler.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long tx = debounced(template, "debounce-tx-snooze", "first-tx");
            long lease = debounced(template, "debounce-lease-snooze", "first-lease");
            assertThat(handler.running.await(20, TimeUnit.SECONDS)).isTrue();
            template.send("debounce-tx-snooze", "second",
                    SendOptions.builder().debounce("account-7", Duration.ofHours(1)).build());
            template.send("debounce-lease-snooze", "second",
                    SendOptions.builder().debounce("account-7", Duration.ofHours(1)).build());
            handler.newerSent.countDown();

            for (long id : new long[] { tx, lease }) {
                await().atMost(Duration.ofSeconds(10)).until(() -> "scheduled".equals(jobs.row(id).get("state")));
                Map<String, Object> row = jobs.row(id);
                assertThat(row.get("attempts")).isEqualTo(0);
                assertThat(((java.sql.Timestamp) row.get("run_at")).toInstant())
                    .isAfter(java.time.Instant.now().plus(Duration.ofMinutes(50)));
            }
        });
    }

    private static long debounced(QueueTemplate template, String queue, String payload) {
        return template.send(queue, payload, SendOptions.builder().debounce("account-7", Duration.ofMillis(50)).build())
            .jobId();
    }

    /** Returns text with a NUL character in it, and reports progress with one. */
    static class NulHandler {

        final CountDownLatch progressed = new CountDownLatch(1);

        final CountDownLatch finish = new CountDownLatch(1);

        @QueueListener(queue = "nul-tx", mode = "TRANSACTIONAL")
        Map<String, String> transactional(String payload) {
            return Map.of("name", "C string\u0000 tail", "escaped", "\\u0000 stays");
        }

        @QueueListener(queue = "nul-lease")
        Map<String, String> lease(String payload) {
            return Map.of("name", "C string\u0000 tail", "escaped", "\\u0000 stays");
        }

        @QueueListener(queue = "nul-progress")
        void progress(String payload, JobContext job) throws InterruptedException {
            job.progress(50, "reading\u0000block");
            progressed.countDown();
            assertThat(finish.await(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void anOutputWithANulCharacterIsRecordedAndTheJobCompletesOnce() {
        runner.withPropertyValues("pgqueue.history.enabled=true").withBean(NulHandler.class).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            for (String queue : new String[] { "nul-tx", "nul-lease" }) {
                long id = template.send(queue, "x");
                await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count(queue) == 0);
                Map<String, Object> history = jobs.jdbc()
                    .queryForMap("SELECT state, attempts, output->>'name' AS name, output->>'escaped' AS escaped "
                            + "FROM pgqueue.job_history WHERE id = ?", id);
                assertThat(history.get("state")).isEqualTo("completed");
                assertThat(history.get("attempts")).isEqualTo(1);
                assertThat(history.get("name")).isEqualTo("C string\uFFFD tail");
                assertThat(history.get("escaped")).isEqualTo("\\u0000 stays");
            }
        });
    }

    @Test
    void aProgressMessageWithANulCharacterIsRecordedAndTheNodeStaysAlive() {
        NulHandler handler = new NulHandler();
        runner.withBean(NulHandler.class, () -> handler).run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("nul-progress", "x");
            assertThat(handler.progressed.await(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> "reading\uFFFDblock".equals(jobs.row(id).get("progress_message")));
            // heartbeats every 200 ms keep succeeding: the node stays younger than its 1 s timeout throughout
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> heartbeatAge(context)
                .compareTo(Duration.ofMillis(900)) < 0);
            handler.finish.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("nul-progress") == 0);
        });
    }

    /** A value whose only property throws when Jackson reads it. */
    public static class Unwritable {

        public String getValue() {
            throw new IllegalStateException("not writable");
        }
    }

    /** Returns a value Jackson cannot write. */
    static class UnwritableOutputHandler {

        @QueueListener(queue = "unwritable-tx", mode = "TRANSACTIONAL")
        Unwritable transactional(String payload) {
            return new Unwritable();
        }

        @QueueListener(queue = "unwritable-lease")
        Unwritable lease(String payload) {
            return new Unwritable();
        }
    }

    @Test
    void aReturnValueJacksonCannotWriteNeverFailsACompletedRun() {
        for (String history : new String[] { "false", "true" }) {
            runner.withPropertyValues("pgqueue.history.enabled=" + history)
                .withBean(UnwritableOutputHandler.class)
                .run((context) -> {
                    QueueTemplate template = context.getBean(QueueTemplate.class);
                    for (String queue : new String[] { "unwritable-tx", "unwritable-lease" }) {
                        long id = template.send(queue, "x");
                        await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count(queue) == 0);
                        if (history.equals("true")) {
                            assertThat(jobs.jdbc().queryForObject(
                                    "SELECT state FROM pgqueue.job_history WHERE id = ?", String.class, id))
                                .isEqualTo("completed");
                        }
                    }
                });
        }
    }

    private static Duration heartbeatAge(ApplicationContext context) {
        Duration age = context.getBean(QueueListenerContainerRegistry.class).heartbeatAge();
        return (age != null) ? age : Duration.ofDays(1);
    }
}
