package io.pgqueue.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.SnoozeException;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.CancelResult;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.model.NoSuchJobException;
import io.pgqueue.model.QueueCounts;
import io.pgqueue.model.SendResult;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Job control on real PostgreSQL, across two application contexts where the cluster matters: looking jobs up,
 * cancelling them (before and while they run), snoozing, timeouts, progress and output.
 */
class JobControlTests {

    private static final TestDatabase database = TestPostgres.createDatabase(JobControlTests.class);

    private static final Duration HEARTBEAT = Duration.ofSeconds(1);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.history.enabled=true", "pgqueue.listener.heartbeat-interval=" + HEARTBEAT.toMillis() + "ms",
                "pgqueue.listener.node-timeout=10s", "pgqueue.listener.lease-duration=20s");

    /** A context with no listener: an operator's node, or a web node that only sends. */
    private final ApplicationContextRunner operator = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.history.enabled=true", "pgqueue.listener.auto-startup=false");

    private final Jobs jobs = new Jobs(database.dataSource());

    record Work(String name) {
    }

    record Receipt(String name, int length) {
    }

    /** Blocks until interrupted; says whether and when it was, and then returns normally. */
    static class Stubborn {

        final CountDownLatch started = new CountDownLatch(1);

        final AtomicLong interruptedAt = new AtomicLong();

        final AtomicLong runs = new AtomicLong();

        @QueueListener(queue = "stubborn", concurrency = "2")
        String handle(Work work) {
            runs.incrementAndGet();
            started.countDown();
            try {
                Thread.sleep(60_000);
            }
            catch (InterruptedException ex) {
                interruptedAt.set(System.nanoTime());
            }
            return "done anyway";
        }
    }

    /** Reports progress, then checks for cancellation cooperatively until it comes. */
    static class Cooperative {

        final CountDownLatch reported = new CountDownLatch(1);

        final AtomicBoolean sawCancellation = new AtomicBoolean();

        @QueueListener(queue = "cooperative")
        void handle(Work work, JobContext job) {
            job.progress(40, "halfway through " + work.name());
            reported.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                if (job.isCancellationRequested()) {
                    sawCancellation.set(true);
                }
                job.checkCancelled();
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void aRunningJobCancelledFromAnotherNodeStopsWithinAHeartbeatEndsCancelledAndNeverRuns() throws Exception {
        Stubborn stubborn = new Stubborn();
        runner.withBean(Stubborn.class, () -> stubborn).run((worker) -> {
            long id = worker.getBean(QueueTemplate.class).send("stubborn", new Work("forever"));
            assertThat(stubborn.started.await(10, TimeUnit.SECONDS)).isTrue();

            operator.run((ops) -> {
                QueueAdmin admin = ops.getBean(QueueAdmin.class);
                assertThat(admin.job(id).state()).isEqualTo(JobState.RUNNING);
                long requestedAt = System.nanoTime();

                assertThat(admin.cancel(id)).isEqualTo(CancelResult.CANCEL_REQUESTED);
                assertThat(admin.job(id).cancelRequested()).isTrue();

                await().atMost(Duration.ofSeconds(10)).until(() -> stubborn.interruptedAt.get() != 0);
                Duration toInterrupt = Duration.ofNanos(stubborn.interruptedAt.get() - requestedAt);
                assertThat(toInterrupt).as("cancellation to interruption").isLessThan(HEARTBEAT.plusMillis(900));

                await().atMost(Duration.ofSeconds(10)).until(() -> admin.job(id).state() == JobState.CANCELLED);
                JobInfo cancelled = admin.job(id);
                assertThat(cancelled.attempts()).isEqualTo(1);
                assertThat(cancelled.finishedAt()).isNotNull();
                assertThat(cancelled.output()).as("a cancelled job keeps no output").isNull();
                assertThat(jobs.count("stubborn")).isZero();
                QueueCounts counts = admin.queue("stubborn").orElseThrow().counts();
                assertThat(counts.cancelled()).isEqualTo(1);
                assertThat(counts.completed()).isZero();
                assertThat(counts.running()).isZero();
                assertThatIllegalStateException().isThrownBy(() -> admin.cancel(id))
                    .withMessageContaining("already finished (cancelled)");
            });
            assertThat(stubborn.runs.get()).as("runs of the cancelled job").isEqualTo(1);
        });
    }

    @Test
    void aHandlerSeesItsCancellationAndItsProgressIsReadFromAnotherNode() throws Exception {
        Cooperative cooperative = new Cooperative();
        runner.withBean(Cooperative.class, () -> cooperative).run((worker) -> {
            long id = worker.getBean(QueueTemplate.class).send("cooperative", new Work("the ledger"));
            assertThat(cooperative.reported.await(10, TimeUnit.SECONDS)).isTrue();
            operator.run((ops) -> {
                QueueAdmin admin = ops.getBean(QueueAdmin.class);
                await().atMost(Duration.ofSeconds(10)).until(() -> admin.job(id).progress() != null);
                assertThat(admin.job(id).progress()).isEqualTo(new JobInfo.Progress(40, "halfway through the ledger"));

                assertThat(admin.cancel(id)).isEqualTo(CancelResult.CANCEL_REQUESTED);
                await().atMost(Duration.ofSeconds(10)).until(() -> admin.job(id).state() == JobState.CANCELLED);
            });
            assertThat(cooperative.sawCancellation).isTrue();
        });
    }

    @Test
    void aJobThatHasNotStartedIsCancelledAtOnceAndReleasesItsDedupKey() {
        operator.run((ops) -> {
            QueueTemplate template = ops.getBean(QueueTemplate.class);
            QueueAdmin admin = ops.getBean(QueueAdmin.class);
            SendOptions later = SendOptions.builder().delay(Duration.ofHours(1)).dedupKey("invoice-7").build();
            long id = template.send("later", new Work("invoice"), later).jobId();
            assertThat(template.send("later", new Work("invoice"), later).duplicate()).isTrue();

            assertThat(admin.cancel(id)).isEqualTo(CancelResult.CANCELLED);

            JobInfo cancelled = admin.job(id);
            assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
            assertThat(cancelled.dedupKey()).isEqualTo("invoice-7");
            QueueCounts counts = admin.queue("later").orElseThrow().counts();
            assertThat(counts.scheduled()).isZero();
            assertThat(counts.cancelled()).isEqualTo(1);
            assertThat(template.send("later", new Work("invoice"), later).created()).as("dedup key released").isTrue();
        });
    }

    @Test
    void bulkCancelFinishesTheMatchingJobsAndLeavesTheOthers() {
        operator.run((ops) -> {
            QueueTemplate template = ops.getBean(QueueTemplate.class);
            QueueAdmin admin = ops.getBean(QueueAdmin.class);
            for (int i = 0; i < 30; i++) {
                template.send("bulk", new Work("w" + i),
                        SendOptions.builder().header("tenant", (i % 3 == 0) ? "acme" : "other").build());
            }
            BulkCancelResult result = admin.cancel(JobQuery.queue("bulk").header("tenant", "acme").limit(4).build());
            assertThat(result).isEqualTo(new BulkCancelResult(10, 0, 0));
            assertThat(admin.queue("bulk").orElseThrow().counts().ready()).isEqualTo(20);
            assertThat(admin.jobs(JobQuery.queue("bulk").header("tenant", "acme").build()).jobs()).isEmpty();
        });
    }

    /** Snoozes its first attempt, by the context or by the exception. */
    static class Snoozer {

        final List<Integer> attempts = new CopyOnWriteArrayList<>();

        final CountDownLatch secondRun = new CountDownLatch(2);

        @QueueListener(queue = "snooze-lease")
        void lease(Work work, JobContext job) {
            attempts.add(job.attempt());
            secondRun.countDown();
            if (secondRun.getCount() == 1) {
                job.snooze(Duration.ofMillis(1500));
            }
        }

        @QueueListener(queue = "snooze-tx", mode = "transactional")
        void transactional(Work work, JobContext job) {
            attempts.add(job.attempt());
            secondRun.countDown();
            if (secondRun.getCount() == 1) {
                throw new SnoozeException(Duration.ofMillis(1500));
            }
        }
    }

    @Test
    void snoozeLeavesTheAttemptsUnchangedInBothModes() {
        for (String queue : List.of("snooze-lease", "snooze-tx")) {
            Snoozer snoozer = new Snoozer();
            runner.withBean(Snoozer.class, () -> snoozer).run((context) -> {
                long id = context.getBean(QueueTemplate.class).send(queue, new Work("later"));
                QueueAdmin admin = context.getBean(QueueAdmin.class);
                // snoozed for longer than the wait between polls: the job is seen scheduled, its attempt uncounted
                await().atMost(Duration.ofSeconds(10)).until(() -> admin.job(id).state() == JobState.SCHEDULED);
                assertThat(admin.job(id).attempts()).as(queue + ": attempts while snoozed").isZero();
                assertThat(admin.job(id).runAt()).isAfter(Instant.now().plusMillis(200));
                assertThat(snoozer.secondRun.await(10, TimeUnit.SECONDS)).isTrue();
                await().atMost(Duration.ofSeconds(10)).until(() -> admin.job(id).state() == JobState.COMPLETED);
                assertThat(snoozer.attempts).as(queue).containsExactly(1, 1);
                assertThat(admin.job(id).attempts()).as(queue).isEqualTo(1);
                assertThat(admin.queue(queue).orElseThrow().counts().failed()).as(queue).isZero();
            });
        }
    }

    /** Overruns its first attempt (ignoring the interruption), then finishes at once. */
    static class Overrunner {

        private final JdbcTemplate jdbc;

        Overrunner(javax.sql.DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        final List<Integer> attempts = new CopyOnWriteArrayList<>();

        final List<Boolean> interrupted = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "slow-lease", timeout = "300ms")
        void lease(Work work, JobContext job) {
            overrun(job);
        }

        @QueueListener(queue = "slow-tx", mode = "transactional", timeout = "300ms")
        void transactional(Work work, JobContext job) {
            jdbc.update("INSERT INTO public.slow_effect VALUES (?)", job.attempt());
            overrun(job);
        }

        @QueueListener(queue = "slow-per-job")
        void perJob(Work work, JobContext job) {
            overrun(job);
        }

        private void overrun(JobContext job) {
            attempts.add(job.attempt());
            if (job.attempt() == 1) {
                try {
                    Thread.sleep(30_000);
                    interrupted.add(false);
                }
                catch (InterruptedException ex) {
                    interrupted.add(true);
                }
            }
        }
    }

    @Test
    void aJobPastItsTimeoutFailsWithATimeoutErrorAndItsRetryRuns() {
        new JdbcTemplate(database.dataSource()).execute("CREATE TABLE IF NOT EXISTS public.slow_effect (attempt int)");
        runner.withBean(Overrunner.class).run((context) -> {
            Overrunner overrunner = context.getBean(Overrunner.class);
            QueueTemplate template = context.getBean(QueueTemplate.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            Map<String, Long> ids = Map.of("slow-lease", template.send("slow-lease", new Work("a")),
                    "slow-tx", template.send("slow-tx", new Work("b")),
                    "slow-per-job", template.send("slow-per-job", new Work("c"),
                            SendOptions.builder().timeout(Duration.ofMillis(300)).build()).jobId());
            ids.forEach((queue, id) -> {
                await().atMost(Duration.ofSeconds(15)).until(() -> admin.job(id).state() == JobState.COMPLETED);
                JobInfo done = admin.job(id);
                assertThat(done.attempts()).as(queue).isEqualTo(2);
                assertThat(done.lastError()).as(queue).contains("JobTimeoutException").contains("timed out after 300 ms");
                assertThat(admin.queue(queue).orElseThrow().counts().failed()).as(queue).isEqualTo(1);
            });
            assertThat(overrunner.interrupted).containsExactly(true, true, true);
            assertThat(overrunner.attempts).hasSize(6);
            // the TRANSACTIONAL attempt that timed out rolled back its write
            assertThat(new JdbcTemplate(database.dataSource()).queryForList("SELECT attempt FROM public.slow_effect",
                    Integer.class)).containsExactly(2);
        });
    }

    /** Returns a receipt, which is kept as the job's output. */
    static class Cashier {

        @QueueListener(queue = "receipts")
        Receipt lease(Work work) {
            return new Receipt(work.name(), work.name().length());
        }

        @QueueListener(queue = "receipts-tx", mode = "transactional")
        Receipt transactional(Work work) {
            return new Receipt(work.name(), work.name().length());
        }
    }

    @Test
    void aListenersReturnValueIsTheJobsOutputInHistoryReadableById() {
        runner.withBean(Cashier.class, Cashier::new).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            for (String queue : List.of("receipts", "receipts-tx")) {
                long id = template.send(queue, new Work("espresso"));
                await().atMost(Duration.ofSeconds(10)).until(() -> admin.job(id).state() == JobState.COMPLETED);
                assertThat(template.output(id, Receipt.class)).as(queue).contains(new Receipt("espresso", 8));
                assertThat(admin.job(id).output()).as(queue).isEqualTo("{\"name\": \"espresso\", \"length\": 8}");
            }
        });
    }

    @Test
    void jobsArePagedNewestFirstByCursorAndFilteredByGroupDedupHeaderStateAndTime() {
        operator.run((ops) -> {
            QueueTemplate template = ops.getBean(QueueTemplate.class);
            QueueAdmin admin = ops.getBean(QueueAdmin.class);
            Instant before = Instant.now().minusSeconds(1);
            List<Long> sent = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                SendOptions.Builder options = SendOptions.builder().header("batch", "b" + (i % 5)).groupKey("g" + (i % 2));
                if (i % 10 == 0) {
                    options.delay(Duration.ofHours(1)).dedupKey("d" + i);
                }
                sent.add(template.send("paged", new Work("w" + i), options.build()).jobId());
            }
            List<Long> seen = new ArrayList<>();
            JobQuery query = JobQuery.queue("paged").limit(10).build();
            JobPage page = admin.jobs(query);
            while (true) {
                page.jobs().forEach((job) -> seen.add(job.id()));
                if (page.nextCursor() == null) {
                    break;
                }
                // churn between pages does not disturb the cursor
                template.send("paged", new Work("newer"));
                page = admin.jobs(query.after(page.nextCursor()));
            }
            List<Long> newestFirst = new ArrayList<>(sent);
            java.util.Collections.reverse(newestFirst);
            assertThat(seen).isEqualTo(newestFirst);

            assertThat(ids(admin, JobQuery.queue("paged").groupKey("g1"))).hasSize(12).allMatch((id) -> sent.indexOf(id) % 2 == 1);
            assertThat(ids(admin, JobQuery.queue("paged").dedupKey("d20"))).containsExactly(sent.get(20));
            assertThat(ids(admin, JobQuery.queue("paged").header("batch", "b3")))
                .containsExactly(sent.get(23), sent.get(18), sent.get(13), sent.get(8), sent.get(3));
            assertThat(ids(admin, JobQuery.queue("paged").states(JobState.SCHEDULED)))
                .containsExactly(sent.get(20), sent.get(10), sent.get(0));
            assertThat(ids(admin, JobQuery.queue("paged").enqueuedAfter(before).enqueuedBefore(Instant.now().plusSeconds(60))))
                .hasSize(25 + 2);
            assertThat(ids(admin, JobQuery.queue("paged").enqueuedBefore(before))).isEmpty();

            JobInfo job = admin.job(sent.get(10));
            assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
            assertThat(job.headers()).isEqualTo(Map.of("batch", "b0"));
            assertThat(job.groupKey()).isEqualTo("g0");
            assertThat(job.payload()).isEqualTo("{\"name\": \"w10\"}");
            assertThat(job.payloadType()).isEqualTo(Work.class.getName());

            admin.cancel(sent.get(10));
            assertThat(ids(admin, JobQuery.queue("paged").states(JobState.CANCELLED, JobState.SCHEDULED)))
                .containsExactly(sent.get(20), sent.get(10), sent.get(0));
        });
    }

    private static List<Long> ids(QueueAdmin admin, JobQuery.Builder query) {
        return admin.jobs(query.build()).jobs().stream().map(JobInfo::id).toList();
    }

    /** Holds its TRANSACTIONAL job's transaction open until released. */
    static class Holder {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @QueueListener(queue = "held", mode = "transactional")
        void handle(Work work) throws InterruptedException {
            started.countDown();
            release.await(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void badInputGetsAClearErrorAndChangesNothing() throws Exception {
        Holder holder = new Holder();
        runner.withBean(Holder.class, () -> holder).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);

            assertThatThrownBy(() -> admin.job(987_654_321L)).isInstanceOf(NoSuchJobException.class)
                .hasMessageContaining("No job with id 987654321");
            assertThatThrownBy(() -> admin.cancel(987_654_321L)).isInstanceOf(NoSuchJobException.class);
            assertThatThrownBy(() -> template.output(987_654_321L, String.class)).isInstanceOf(NoSuchJobException.class);

            long held = template.send("held", new Work("long transaction"));
            assertThat(holder.started.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatIllegalStateException().isThrownBy(() -> admin.cancel(held))
                .withMessageContaining("TRANSACTIONAL listener, whose transaction holds it");
            holder.release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> admin.job(held).state() == JobState.COMPLETED);
            QueueCounts before = admin.queue("held").orElseThrow().counts();
            assertThatIllegalStateException().isThrownBy(() -> admin.cancel(held))
                .withMessageContaining("Job " + held + " has already finished (completed): nothing to cancel");
            assertThat(admin.job(held).state()).isEqualTo(JobState.COMPLETED);
            assertThat(admin.queue("held").orElseThrow().counts()).isEqualTo(before);

            assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.builder().timeout(Duration.ofSeconds(-1)))
                .withMessageContaining("timeout must be positive");
            assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.builder().dedupFor(Duration.ofMillis(-5)))
                .withMessageContaining("dedupFor must be positive");
            assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.builder().debounce("k", Duration.ZERO))
                .withMessageContaining("debounce window must be positive");
            assertThatIllegalArgumentException().isThrownBy(() -> SendOptions.builder().dedupFor(Duration.ofSeconds(1)).build())
                .withMessageContaining("dedupFor needs a dedupKey");
            assertThatIllegalArgumentException().isThrownBy(() -> new SnoozeException(Duration.ofSeconds(-1)))
                .withMessageContaining("must not be negative");
            assertThatIllegalArgumentException().isThrownBy(() -> JobQuery.queue("held").limit(JobQuery.MAX_LIMIT + 1))
                .withMessageContaining("limit must be between 1 and 500");
            assertThatIllegalArgumentException().isThrownBy(() -> JobQuery.queue("bad queue!"))
                .withMessageContaining("Invalid queue name");
            assertThatIllegalArgumentException().isThrownBy(() -> template.sendBatch("held",
                    List.of(io.pgqueue.JobRequest.of(new Work("x"),
                            SendOptions.builder().debounce("k", Duration.ofSeconds(1)).build()))))
                .withMessageContaining("debounced send cannot be part of a batch");
        });
    }

    /** Counts runs per payload. */
    static class Counter {

        final Map<String, Integer> runs = new ConcurrentHashMap<>();

        @QueueListener(queue = "windowed")
        void windowed(Work work) {
            runs.merge(work.name(), 1, Integer::sum);
        }

        @QueueListener(queue = "debounced")
        void debounced(Work work) {
            runs.merge(work.name(), 1, Integer::sum);
        }
    }

    @Test
    void aDedupWindowBlocksAResendAfterCompletionAndLetsItThroughAfterTheWindow() {
        Counter counter = new Counter();
        runner.withBean(Counter.class, () -> counter).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            Duration window = Duration.ofSeconds(2);
            SendOptions once = SendOptions.builder().dedupKey("report-2026-11").dedupFor(window).build();
            long sentAt = System.nanoTime();
            long first = template.send("windowed", new Work("report"), once).jobId();
            await().atMost(Duration.ofSeconds(10)).until(() -> counter.runs.getOrDefault("report", 0) == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("windowed") == 0);

            SendResult again = template.send("windowed", new Work("report"), once);
            assertThat(again.duplicate()).as("a re-send after completion, inside the window").isTrue();

            await().atMost(Duration.ofSeconds(10)).until(() -> template.send("windowed", new Work("report"), once).created());
            assertThat(Duration.ofNanos(System.nanoTime() - sentAt)).isGreaterThanOrEqualTo(window);
            await().atMost(Duration.ofSeconds(10)).until(() -> counter.runs.get("report") == 2);
            assertThat(first).isPositive();
        });
    }

    @Test
    void hundredDebouncedSendsMakeOneJobThatRunsWithTheLastPayloadOnceQuiet() {
        Counter counter = new Counter();
        runner.withBean(Counter.class, () -> counter).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            SendOptions debounced = SendOptions.builder().debounce("search-index", Duration.ofMillis(800)).build();
            Set<Long> ids = new java.util.HashSet<>();
            for (int i = 1; i <= 100; i++) {
                ids.add(template.send("debounced", new Work("edit-" + i), debounced).jobId());
            }
            assertThat(ids).hasSize(1);
            assertThat(jobs.count("debounced")).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> !counter.runs.isEmpty() && jobs.count("debounced") == 0);
            assertThat(counter.runs).isEqualTo(Map.of("edit-100", 1));
            QueueCounts counts = context.getBean(QueueAdmin.class).queue("debounced").orElseThrow().counts();
            assertThat(counts.enqueued()).isEqualTo(1);
            assertThat(counts.completed()).isEqualTo(1);
        });
    }
}
