package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.model.SendResult;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class JobContextTests {

    private static final TestDatabase database = TestPostgres.createDatabase(JobContextTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    record Invoice(String number) {
    }

    record Seen(Object payload, long id, String queue, int attempt, int maxAttempts, String header, Instant enqueuedAt,
            String payloadType, boolean leaseExtended, Instant leaseUntil) {
    }

    static class Inspector {

        final CompletableFuture<Seen> seen = new CompletableFuture<>();

        private final Jobs jobs;

        Inspector(Jobs jobs) {
            this.jobs = jobs;
        }

        @QueueListener(queue = "invoices")
        void handle(JobContext job, Object payload) {
            boolean extended = job.extendLease(Duration.ofMinutes(30));
            Instant leaseUntil = ((java.sql.Timestamp) jobs.row(job.id()).get("lease_until")).toInstant();
            seen.complete(new Seen(payload, job.id(), job.queue(), job.attempt(), job.maxAttempts(),
                    job.headers().get("tenant"), job.enqueuedAt(), job.payloadType(), extended, leaseUntil));
        }
    }

    /** Records the MDC while the handler runs, and after it returned (an observer runs on the same thread). */
    static class LogContextRecorder implements JobObserver {

        final CompletableFuture<java.util.Map<String, String>> during = new CompletableFuture<>();

        final CompletableFuture<java.util.Map<String, String>> after = new CompletableFuture<>();

        @QueueListener(queue = "logged")
        void handle(Invoice invoice) {
            during.complete(mdc());
        }

        @Override
        public void succeeded(JobContext job, Duration duration) {
            after.complete(mdc());
        }

        private static java.util.Map<String, String> mdc() {
            java.util.Map<String, String> copy = org.slf4j.MDC.getCopyOfContextMap();
            return (copy != null) ? copy : java.util.Map.of();
        }
    }

    /**
     * A handler that leaves a key of its own in the MDC (a tenant, say) and records what the next job's handler
     * sees: one TRANSACTIONAL worker, so both run on the same pooled thread.
     */
    static class LeakingHandler {

        final java.util.List<java.util.Map<String, String>> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

        final java.util.List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();

        @QueueListener(queue = "leaky", mode = "TRANSACTIONAL", concurrency = "1")
        void handle(Invoice invoice) {
            threads.add(Thread.currentThread());
            seen.add(LogContextRecorder.mdc());
            org.slf4j.MDC.put("tenant", invoice.number());
        }
    }

    /** Records each job's times as its handler sees them. */
    static class TimesRecorder {

        final java.util.Map<Long, Instant[]> seen = new java.util.concurrent.ConcurrentHashMap<>();

        @QueueListener(queue = "timed", mode = "TRANSACTIONAL", concurrency = "1", batchSize = "10")
        void handle(JobContext job) {
            seen.put(job.id(), new Instant[] { job.enqueuedAt(), job.dueAt(), job.claimedAt() });
        }
    }

    @Test
    void jobsClaimedTogetherEachCarryTheirOwnEnqueueAndDueTimesAndTheTimeOfTheirClaim() {
        Jobs jobs = new Jobs(database.dataSource());
        TimesRecorder recorder = new TimesRecorder();
        runner.withPropertyValues("pgqueue.listener.auto-startup=false")
            .withBean(TimesRecorder.class, () -> recorder)
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                java.util.List<Long> ids = new java.util.ArrayList<>();
                for (int minutes : new int[] { 3, 1, 2 }) {
                    ids.add(template.send("timed", new Invoice("INV-" + minutes),
                            SendOptions.builder().runAt(Instant.now().minus(Duration.ofMinutes(minutes))).build())
                        .jobId());
                }
                java.util.Map<Long, Instant[]> rows = new java.util.HashMap<>();
                for (long id : ids) {
                    java.util.Map<String, Object> row = jobs.row(id);
                    rows.put(id, new Instant[] { ((java.sql.Timestamp) row.get("created_at")).toInstant(),
                            ((java.sql.Timestamp) row.get("run_at")).toInstant() });
                }
                context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).getListenerContainers()
                    .forEach(QueueListenerContainer::start);
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> recorder.seen.size() == 3);

                // one claim took all three (one worker, a batch of ten): one claim time, after every due time
                Instant claimed = recorder.seen.get(ids.get(0))[2];
                for (long id : ids) {
                    Instant[] seen = recorder.seen.get(id);
                    assertThat(seen[0]).as("enqueued at, job %d", id).isEqualTo(rows.get(id)[0]);
                    assertThat(seen[1]).as("due at, job %d", id).isEqualTo(rows.get(id)[1]);
                    assertThat(seen[2]).as("claimed at, job %d", id).isEqualTo(claimed).isAfter(seen[1]);
                }
                assertThat(rows.values().stream().map((times) -> times[1]).distinct()).hasSize(3);
            });
    }

    @Test
    void aHandlersLogLinesCarryItsQueueJobAndAttemptAndNothingIsLeftAfter() throws Exception {
        LogContextRecorder recorder = new LogContextRecorder();
        runner.withBean(LogContextRecorder.class, () -> recorder).run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("logged", new Invoice("INV-2"));
            assertThat(recorder.during.get(10, TimeUnit.SECONDS)).containsEntry("pgqueue.queue", "logged")
                .containsEntry("pgqueue.jobId", Long.toString(id))
                .containsEntry("pgqueue.attempt", "1");
            assertThat(recorder.after.get(10, TimeUnit.SECONDS)).doesNotContainKeys("pgqueue.queue", "pgqueue.jobId",
                    "pgqueue.attempt");
        });
    }

    @Test
    void aKeyAHandlerLeftInTheLogContextDoesNotFollowTheNextJobOnItsThread() throws Exception {
        LeakingHandler handler = new LeakingHandler();
        runner.withBean(LeakingHandler.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.send("leaky", new Invoice("acme"));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> handler.seen.size() == 1);
            long second = template.send("leaky", new Invoice("globex"));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> handler.seen.size() == 2);

            // the second job's log lines carry its own keys, not the tenant the first one's handler left behind
            assertThat(handler.threads.get(1)).as("both jobs ran on one pooled thread").isSameAs(handler.threads.get(0));
            assertThat(handler.seen.get(1)).containsEntry("pgqueue.jobId", Long.toString(second))
                .containsEntry("pgqueue.queue", "leaky")
                .doesNotContainKey("tenant");
        });
    }

    @Test
    void listenerSeesItsJobAndCanExtendItsLease() throws Exception {
        Jobs jobs = new Jobs(database.dataSource());
        Inspector inspector = new Inspector(jobs);
        runner.withBean(Inspector.class, () -> inspector).run((context) -> {
            Instant before = Instant.now().minusSeconds(1);
            SendResult sent = context.getBean(QueueTemplate.class)
                .send("invoices", new Invoice("INV-1"),
                        SendOptions.builder().header("tenant", "acme").maxAttempts(7).build());

            Seen seen = inspector.seen.get(10, TimeUnit.SECONDS);

            // an Object parameter gets the type recorded at send
            assertThat(seen.payload()).isEqualTo(new Invoice("INV-1"));
            assertThat(seen.id()).isEqualTo(sent.jobId());
            assertThat(seen.queue()).isEqualTo("invoices");
            assertThat(seen.attempt()).isEqualTo(1);
            assertThat(seen.maxAttempts()).isEqualTo(7);
            assertThat(seen.header()).isEqualTo("acme");
            assertThat(seen.enqueuedAt()).isAfter(before);
            assertThat(seen.payloadType()).isEqualTo(Invoice.class.getName());
            assertThat(seen.leaseExtended()).isTrue();
            assertThat(seen.leaseUntil()).isAfter(Instant.now().plus(Duration.ofMinutes(25)));
        });
    }
}
