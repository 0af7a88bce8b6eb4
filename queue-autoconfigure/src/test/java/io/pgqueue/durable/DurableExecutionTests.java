package io.pgqueue.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.QueueEvents;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.ChildJobFailedException;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.JobSuspendedException;
import io.pgqueue.support.Jobs;
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
 * Durable execution inside a job, on real PostgreSQL, in both delivery modes: steps that never run twice, sleeps
 * and waits that hold no worker and charge no attempt, events emitted before, after and never, spawned jobs
 * awaited, and the mistakes a handler makes.
 */
class DurableExecutionTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DurableExecutionTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    private final Jobs jobs = new Jobs(database.dataSource());

    private final JdbcTemplate jdbc = jobs.jdbc();

    record Receipt(String charge, long cents) {
    }

    /** Counts what each job's steps and handler did, by a name the test chooses. */
    static final class Effects {

        final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        final Map<String, Object> seen = new ConcurrentHashMap<>();

        int count(String what) {
            return counts.computeIfAbsent(what, (key) -> new AtomicInteger()).get();
        }

        int increment(String what) {
            return counts.computeIfAbsent(what, (key) -> new AtomicInteger()).incrementAndGet();
        }
    }

    static class Checkout {

        final Effects effects = new Effects();

        @QueueListener(queue = "checkout-lease")
        void lease(String order, JobContext ctx) {
            checkout("lease:" + order, ctx);
        }

        @QueueListener(queue = "checkout-tx", mode = "TRANSACTIONAL")
        void transactional(String order, JobContext ctx) {
            checkout("tx:" + order, ctx);
        }

        private void checkout(String order, JobContext ctx) {
            effects.increment(order + ":runs");
            Receipt receipt = ctx.step("charge", Receipt.class, () -> {
                effects.increment(order + ":charge");
                return new Receipt("ch_" + order, 4200);
            });
            String reservation = ctx.step("reserve", () -> {
                effects.increment(order + ":reserve");
                return "res-" + order;
            });
            if (ctx.attempt() == 1) {
                throw new IllegalStateException("shipping is down");
            }
            effects.seen.put(order, List.of(receipt, reservation));
        }
    }

    @Test
    void aCompletedStepIsNotRunAgainWhenTheJobRetriesAndItsResultComesBack() {
        Checkout handler = new Checkout();
        runner.withBean(Checkout.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long lease = template.send("checkout-lease", "o1");
            long tx = template.send("checkout-tx", "o1");
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.effects.seen.size() == 2);
            for (String order : List.of("lease:o1", "tx:o1")) {
                assertThat(handler.effects.count(order + ":runs")).isEqualTo(2);
                assertThat(handler.effects.count(order + ":charge")).isEqualTo(1);
                assertThat(handler.effects.count(order + ":reserve")).isEqualTo(1);
                assertThat(handler.effects.seen.get(order))
                    .isEqualTo(List.of(new Receipt("ch_" + order, 4200), "res-" + order));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("checkout-lease") + jobs.count("checkout-tx") == 0);
            // the step of the TRANSACTIONAL job survived its handler's rollback: it committed on its own
            assertThat(lease).isNotEqualTo(tx);
        });
    }

    @Test
    void aStepThatRanIsTimedAndAReplayedOneIsNot() {
        Checkout handler = new Checkout();
        runner.withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations.of(
                io.pgqueue.autoconfigure.PgQueueMetricsAutoConfiguration.class))
            .withBean(io.micrometer.core.instrument.MeterRegistry.class,
                    io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
            .withBean(Checkout.class, () -> handler)
            .run((context) -> {
                context.getBean(QueueTemplate.class).send("checkout-lease", "timed");
                await().atMost(Duration.ofSeconds(20)).until(() -> handler.effects.seen.containsKey("lease:timed"));
                // two runs, two steps each: only the first run's steps ran
                assertThat(context.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                    .get("pgqueue.job.step.duration").tag("queue", "checkout-lease").timer().count()).isEqualTo(2);
            });
    }

    static class Transfers {

        final Effects effects = new Effects();

        volatile JdbcTemplate jdbc;

        @QueueListener(queue = "transfer-lease")
        void lease(String id, JobContext ctx) {
            transfer("lease:" + id, ctx);
        }

        @QueueListener(queue = "transfer-tx", mode = "TRANSACTIONAL")
        void transactional(String id, JobContext ctx) {
            transfer("tx:" + id, ctx);
        }

        private void transfer(String id, JobContext ctx) {
            int run = effects.increment(id + ":runs");
            Integer rows = ctx.transactionalStep("book", Integer.class, () -> {
                int written = jdbc.update("INSERT INTO durable_ledger (transfer) VALUES (?)", id);
                if (run == 1) {
                    // the write and its checkpoint roll back together
                    throw new IllegalStateException("crashed inside the step");
                }
                return written;
            });
            if (run == 2) {
                throw new IllegalStateException("failed after the step");
            }
            effects.seen.put(id, rows);
        }
    }

    @Test
    void aTransactionalStepsWritesHappenExactlyOnce() {
        jdbc.execute("CREATE TABLE IF NOT EXISTS durable_ledger (transfer text NOT NULL)");
        Transfers handler = new Transfers();
        runner.withBean(Transfers.class, () -> handler).run((context) -> {
            // the handler writes through the application's DataSource, whose transactions pgqueue's steps use
            handler.jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.send("transfer-lease", "t1");
            template.send("transfer-tx", "t1");
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.effects.seen.size() == 2);
            for (String id : List.of("lease:t1", "tx:t1")) {
                assertThat(handler.effects.count(id + ":runs")).isEqualTo(3);
                assertThat(jdbc.queryForObject("SELECT count(*) FROM durable_ledger WHERE transfer = ?", Long.class, id))
                    .isEqualTo(1);
            }
        });
    }

    static class Sleeper {

        final Effects effects = new Effects();

        @QueueListener(queue = "sleep-lease")
        void lease(String id, JobContext ctx) {
            sleepy("lease:" + id, ctx);
        }

        @QueueListener(queue = "sleep-tx", mode = "TRANSACTIONAL")
        void transactional(String id, JobContext ctx) {
            sleepy("tx:" + id, ctx);
        }

        private void sleepy(String id, JobContext ctx) {
            effects.increment(id + ":runs");
            ctx.step("before", () -> effects.increment(id + ":before"));
            ctx.sleep(Duration.ofSeconds(1));
            ctx.step("after", () -> effects.increment(id + ":after"));
            effects.seen.put(id, ctx.attempt());
        }
    }

    @Test
    void aSleepingJobHoldsNoWorkerChargesNoAttemptAndResumesPastItsSleep() {
        Sleeper handler = new Sleeper();
        runner.withBean(Sleeper.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long lease = template.send("sleep-lease", "s1");
            long tx = template.send("sleep-tx", "s1");
            for (long id : new long[] { lease, tx }) {
                await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                        "SELECT count(*) FROM pgqueue.job_wait WHERE job_id = ? AND kind = 'sleep'", Long.class, id) == 1);
                Map<String, Object> row = jobs.row(id);
                if (row != null && !row.isEmpty() && "scheduled".equals(row.get("state"))) {
                    assertThat(row.get("attempts")).as(row.toString()).isEqualTo(0);
                }
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.effects.seen.size() == 2);
            for (String id : List.of("lease:s1", "tx:s1")) {
                assertThat(handler.effects.count(id + ":runs")).isEqualTo(2);
                assertThat(handler.effects.count(id + ":before")).isEqualTo(1);
                assertThat(handler.effects.count(id + ":after")).isEqualTo(1);
                // the resumed run is the same attempt: the sleep charged none
                assertThat(handler.effects.seen.get(id)).isEqualTo(1);
            }
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job_wait WHERE job_id IN (?, ?)", Long.class,
                    lease, tx)).isZero();
        });
    }

    static class TransactionalWriter {

        final Effects effects = new Effects();

        volatile JdbcTemplate jdbc;

        @QueueListener(queue = "tx-step-write", mode = "TRANSACTIONAL")
        void write(String id, JobContext ctx) {
            effects.increment(id + ":runs");
            ctx.step("notify", Integer.class,
                    () -> jdbc.update("INSERT INTO durable_notified (id) VALUES (?)", id));
            ctx.sleep(Duration.ofMillis(300));
            effects.seen.put(id, "done");
        }
    }

    /**
     * A TRANSACTIONAL handler's step runs outside the handler's transaction: what it wrote stands when the handler
     * sleeps (its transaction rolls back), and it is not written again on the resumed run.
     */
    @Test
    void aTransactionalHandlersStepWritesStandWhenTheHandlerSleepsAndAreNotRepeated() {
        jdbc.execute("CREATE TABLE IF NOT EXISTS durable_notified (id text NOT NULL)");
        TransactionalWriter handler = new TransactionalWriter();
        runner.withBean(TransactionalWriter.class, () -> handler).run((context) -> {
            handler.jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            context.getBean(QueueTemplate.class).send("tx-step-write", "w1");
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.effects.seen.containsKey("w1"));
            assertThat(handler.effects.count("w1:runs")).isEqualTo(2);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM durable_notified WHERE id = 'w1'", Long.class))
                .isEqualTo(1);
        });
    }

    static class Onboarding {

        final Effects effects = new Effects();

        @QueueListener(queue = "onboard-lease")
        void lease(String user, JobContext ctx) {
            onboard(user, ctx);
        }

        @QueueListener(queue = "onboard-tx", mode = "TRANSACTIONAL")
        void transactional(String user, JobContext ctx) {
            onboard(user, ctx);
        }

        private void onboard(String user, JobContext ctx) {
            effects.increment(user + ":runs");
            Duration timeout = user.startsWith("never") ? Duration.ofMillis(500) : Duration.ofMinutes(5);
            Optional<Receipt> verified = ctx.awaitEvent("verified:" + user, timeout, Receipt.class);
            effects.seen.put(user, verified);
        }
    }

    @Test
    void anEventEmittedAfterTheAwaitResumesTheJobWithItsPayload() {
        Onboarding handler = new Onboarding();
        runner.withBean(Onboarding.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long lease = template.send("onboard-lease", "after-lease");
            long tx = template.send("onboard-tx", "after-tx");
            for (long id : new long[] { lease, tx }) {
                await().atMost(Duration.ofSeconds(10)).until(() -> "scheduled".equals(jobs.row(id).get("state")));
            }
            QueueEvents events = context.getBean(QueueEvents.class);
            assertThat(events.emit("verified:after-lease", new Receipt("v1", 1))).isTrue();
            assertThat(events.emit("verified:after-lease", new Receipt("second", 2))).isFalse();
            assertThat(events.emit("verified:after-tx", new Receipt("v2", 2))).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.effects.seen.size() == 2);
            assertThat(handler.effects.seen.get("after-lease")).isEqualTo(Optional.of(new Receipt("v1", 1)));
            assertThat(handler.effects.seen.get("after-tx")).isEqualTo(Optional.of(new Receipt("v2", 2)));
            assertThat(handler.effects.count("after-lease:runs")).isEqualTo(2);
        });
    }

    @Test
    void anEventEmittedBeforeTheAwaitIsDeliveredAtOnceWithoutParking() {
        Onboarding handler = new Onboarding();
        runner.withBean(Onboarding.class, () -> handler).run((context) -> {
            QueueEvents events = context.getBean(QueueEvents.class);
            assertThat(events.emit("verified:early", new Receipt("early", 7))).isTrue();
            context.getBean(QueueTemplate.class).send("onboard-lease", "early");
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.effects.seen.containsKey("early"));
            assertThat(handler.effects.seen.get("early")).isEqualTo(Optional.of(new Receipt("early", 7)));
            assertThat(handler.effects.count("early:runs")).isEqualTo(1);
        });
    }

    @Test
    void anAwaitWhoseEventNeverComesResumesEmptyAtItsTimeout() {
        Onboarding handler = new Onboarding();
        runner.withBean(Onboarding.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.send("onboard-lease", "never-lease");
            template.send("onboard-tx", "never-tx");
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.effects.seen.size() == 2);
            assertThat(handler.effects.seen.get("never-lease")).isEqualTo(Optional.empty());
            assertThat(handler.effects.seen.get("never-tx")).isEqualTo(Optional.empty());
            // an emit after the timeout changes nothing for the job: it is kept for a later await
            assertThat(context.getBean(QueueEvents.class).emit("verified:never-lease", "late")).isTrue();
            assertThat(handler.effects.count("never-lease:runs")).isEqualTo(2);
        });
    }

    @Test
    void anEventEmittedFromSqlWakesTheWaitingJob() {
        Onboarding handler = new Onboarding();
        runner.withBean(Onboarding.class, () -> handler).run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("onboard-lease", "sql");
            await().atMost(Duration.ofSeconds(10)).until(() -> "scheduled".equals(jobs.row(id).get("state")));
            assertThat(jdbc.queryForObject("SELECT pgqueue.emit('verified:sql', '{\"charge\":\"from-sql\",\"cents\":3}')",
                    Boolean.class)).isTrue();
            assertThat(jdbc.queryForObject("SELECT pgqueue.emit('verified:sql', 'null')", Boolean.class)).isFalse();
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.effects.seen.containsKey("sql"));
            assertThat(handler.effects.seen.get("sql")).isEqualTo(Optional.of(new Receipt("from-sql", 3)));
        });
    }

    /**
     * An emit in one application wakes the job waiting in another by the queue's notification, not by a poll: the
     * consumer polls every 30 s and runs no maintenance, yet the job resumes at once.
     */
    @Test
    void anEventEmittedInAnotherApplicationWakesTheWaitingJobWithoutAPoll() {
        Onboarding handler = new Onboarding();
        ApplicationContextRunner consumer = runner.withBean(Onboarding.class, () -> handler)
            .withPropertyValues("pgqueue.listener.poll-interval=30s", "pgqueue.maintenance.enabled=false");
        consumer.run((consuming) -> {
            List<String> users = List.of("elsewhere-1", "elsewhere-2", "elsewhere-3", "elsewhere-4");
            for (String user : users) {
                long id = consuming.getBean(QueueTemplate.class).send("onboard-lease", user);
                await().atMost(Duration.ofSeconds(10)).until(() -> "scheduled".equals(jobs.row(id).get("state")));
            }
            runner.withPropertyValues("pgqueue.maintenance.enabled=false").run((emitting) -> {
                for (String user : users) {
                    long start = System.nanoTime();
                    assertThat(emitting.getBean(QueueEvents.class).emit("verified:" + user, new Receipt("remote", 9)))
                        .isTrue();
                    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1))
                        .until(() -> handler.effects.seen.containsKey(user));
                    System.out.println("emit -> resumed handler in another application: "
                            + (System.nanoTime() - start) / 1_000_000 + " ms");
                }
            });
            assertThat(handler.effects.seen.get("elsewhere-4")).isEqualTo(Optional.of(new Receipt("remote", 9)));
        });
    }

    static class Importer {

        final Effects effects = new Effects();

        @QueueListener(queue = "import")
        void importAll(String name, JobContext ctx) {
            effects.increment(name + ":runs");
            long chunk = ctx.spawn("import-chunk", name);
            effects.seen.put(name + ":chunk", chunk);
            try {
                Integer rows = ctx.awaitJob(chunk, Integer.class);
                effects.seen.put(name, rows);
            }
            catch (ChildJobFailedException ex) {
                effects.seen.put(name, ex.state());
            }
        }

        /** Opened once the job awaiting "good" is parked: its chunk finishes after that. */
        final java.util.concurrent.CountDownLatch parentParked = new java.util.concurrent.CountDownLatch(1);

        @QueueListener(queue = "import-chunk")
        int chunk(String name, JobContext ctx) throws InterruptedException {
            effects.increment(name + ":chunk-runs");
            if (name.equals("good")) {
                assertThat(parentParked.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            }
            if (name.startsWith("bad")) {
                throw new IllegalStateException("unreadable chunk");
            }
            return 1000;
        }
    }

    @Test
    void aSpawnedJobIsSentOnceAndItsOutputOrItsDeathResumesTheJobAwaitingIt() {
        Importer handler = new Importer();
        runner.withBean(Importer.class, () -> handler)
            .withPropertyValues("pgqueue.queues.import-chunk.max-attempts=1")
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                long good = template.send("import", "good");
                template.send("import", "bad");
                await().atMost(Duration.ofSeconds(10)).until(() -> "scheduled".equals(jobs.row(good).get("state")));
                handler.parentParked.countDown();
                await().atMost(Duration.ofSeconds(20))
                    .until(() -> handler.effects.seen.containsKey("good") && handler.effects.seen.containsKey("bad"));
                assertThat(handler.effects.seen.get("good")).isEqualTo(1000);
                assertThat(handler.effects.seen.get("bad")).isEqualTo("dead");
                assertThat(handler.effects.count("good:chunk-runs")).isEqualTo(1);
                assertThat(handler.effects.count("good:runs")).isEqualTo(2);
                assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'import-chunk' AND state <> 'dead'",
                        Long.class)).isZero();
            });
    }

    static class Mistakes {

        final Effects effects = new Effects();

        @QueueListener(queue = "swallow")
        void swallow(String id, JobContext ctx) {
            effects.increment(id + ":runs");
            try {
                ctx.sleep(Duration.ofMillis(600));
            }
            catch (RuntimeException ex) {
                effects.seen.put(id + ":caught", ex.getClass().getSimpleName());
            }
            try {
                ctx.step("after-sleep", () -> effects.increment(id + ":after"));
            }
            catch (JobSuspendedException ex) {
                effects.increment(id + ":refused");
                return;
            }
            effects.seen.put(id, "done");
        }

        @QueueListener(queue = "unwritable")
        void unwritable(String id, JobContext ctx) {
            ctx.step("connection", () -> new Object());
        }
    }

    /** A batch listener cannot sleep: it has no JobContext, and such a signature is refused at startup. */
    static class BatchSleeper {

        @QueueListener(queue = "batch-sleep")
        void batch(List<String> ids, JobContext ctx) {
            ctx.sleep(Duration.ofMinutes(1));
        }
    }

    @Test
    void aHandlerThatCatchesTheSuspensionStillParksAndRunsNothingPastTheSleepUntilItEnds() {
        Mistakes handler = new Mistakes();
        runner.withBean(Mistakes.class, () -> handler).run((context) -> {
            context.getBean(QueueTemplate.class).send("swallow", "s");
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.effects.seen.containsKey("s"));
            assertThat(handler.effects.seen.get("s:caught")).isEqualTo("JobSuspendedException");
            assertThat(handler.effects.count("s:refused")).isEqualTo(1);
            assertThat(handler.effects.count("s:after")).isEqualTo(1);
            assertThat(handler.effects.count("s:runs")).isEqualTo(2);
        });
    }

    @Test
    void aStepResultThatIsNotDataFailsTheAttemptNamingTheStepAndStoresNothing() {
        Mistakes handler = new Mistakes();
        runner.withBean(Mistakes.class, () -> handler)
            .withPropertyValues("pgqueue.queues.unwritable.max-attempts=1")
            .run((context) -> {
                long id = context.getBean(QueueTemplate.class).send("unwritable", "u");
                await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(id).get("state")));
                assertThat((String) jobs.row(id).get("last_error"))
                    .contains("Result of type java.lang.Object of step 'connection' of job " + id)
                    .contains("cannot be written as JSON");
                assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job_step WHERE job_id = ?", Long.class, id))
                    .isZero();
            });
    }

    @Test
    void aBatchListenerThatWouldSleepIsRefusedAtStartupNamingItsMethod() {
        runner.withBean(BatchSleeper.class, BatchSleeper::new).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                .hasMessageContaining("BatchSleeper.batch(List, JobContext)")
                .hasMessageContaining("a batch listener (List<T>) cannot take a JobContext");
        });
    }

    /** An emit joins the caller's transaction: rolled back, there is no event, and no job is woken. */
    @Test
    void anEmitInATransactionThatRollsBackLeavesNoEvent() {
        runner.run((context) -> {
            QueueEvents events = context.getBean(QueueEvents.class);
            org.springframework.transaction.support.TransactionTemplate transactions =
                    new org.springframework.transaction.support.TransactionTemplate(
                            context.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            transactions.executeWithoutResult((status) -> {
                assertThat(events.emit("rolled-back", "x")).isTrue();
                status.setRollbackOnly();
            });
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.event WHERE key = 'rolled-back'", Long.class))
                .isZero();
            transactions.executeWithoutResult((status) -> events.emit("committed", "y"));
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.event WHERE key = 'committed'", Long.class))
                .isOne();
        });
    }

    @Test
    void anInvalidEventKeyOrPayloadIsRefusedAtEmitAndStoresNothing() {
        runner.run((context) -> {
            QueueEvents events = context.getBean(QueueEvents.class);
            assertThatIllegalArgumentException().isThrownBy(() -> events.emit("k".repeat(513), "x"))
                .withMessageContaining("1 to 512 characters");
            assertThatIllegalArgumentException().isThrownBy(() -> events.emit("", "x"));
            assertThatIllegalArgumentException().isThrownBy(() -> events.emit("pgqueue:job:1", "x"))
                .withMessageContaining("pgqueue's own");
            assertThatIllegalArgumentException().isThrownBy(() -> events.emit("ok", new Object()))
                .withMessageContaining("of event 'ok' cannot be written as JSON");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.event WHERE key IN ('', 'ok', 'pgqueue:job:1') "
                    + "OR length(key) > 512", Long.class)).isZero();
            // an emit nobody waits for is kept for its retention
            assertThat(events.emit("nobody", null, Duration.ofHours(1))).isTrue();
            assertThat(jdbc.queryForObject("SELECT expires_at > now() + interval '50 minutes' FROM pgqueue.event "
                    + "WHERE key = 'nobody'", Boolean.class)).isTrue();
        });
    }

    @Test
    void aJobSleepingUntilATimeThatPassedGoesOnWithoutParking() {
        runner.withBean(PastSleeper.class, PastSleeper::new).run((context) -> {
            PastSleeper handler = context.getBean(PastSleeper.class);
            long id = context.getBean(QueueTemplate.class).send("past-sleep", "p");
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.done);
            assertThat(handler.runs.get()).isEqualTo(1);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job_wait WHERE job_id = ?", Long.class, id))
                .isZero();
        });
    }

    static class PastSleeper {

        final AtomicInteger runs = new AtomicInteger();

        volatile boolean done;

        @QueueListener(queue = "past-sleep")
        void run(String id, JobContext ctx) {
            runs.incrementAndGet();
            ctx.sleepUntil(Instant.now().minusSeconds(1));
            done = true;
        }
    }

    static SendOptions none() {
        return SendOptions.defaults();
    }
}
