package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Defects found by reading the code, each proved by a test that failed before its fix: failures at commit,
 * a refused acknowledgement, payload types named by a row, shutdown with handlers still running, promotion
 * inside a handler's transaction, error texts PostgreSQL cannot store.
 */
class ReliabilityRoundTwoTests {

    private static final TestDatabase database = TestPostgres.createDatabase(ReliabilityRoundTwoTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    private final Jobs jobs = new Jobs(database.dataSource());

    record Item(String name) {
    }

    @BeforeAll
    static void createTables() {
        new JdbcTemplate(database.dataSource()).execute("""
                CREATE TABLE parent (id bigint PRIMARY KEY);
                CREATE TABLE child (parent_id bigint REFERENCES parent DEFERRABLE INITIALLY DEFERRED);
                """);
    }

    /** Writes a row whose foreign key is only checked at commit, and fails there. */
    static class DeferredViolation {

        final AtomicInteger calls = new AtomicInteger();

        private final JdbcTemplate jdbc;

        DeferredViolation(DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        // one worker: several would also race for the job between a rollback and its recording (see the note
        // in TransactionalQueueListenerContainer), which this test does not measure
        @QueueListener(queue = "commit-fails", mode = "TRANSACTIONAL", maxAttempts = "3", concurrency = "1")
        void handle(Item item) {
            calls.incrementAndGet();
            jdbc.update("INSERT INTO child (parent_id) VALUES (42)");
        }
    }

    @Test
    void aTransactionalFailureAtCommitCountsTheAttemptAndEndsDead() {
        runner.withBean(DeferredViolation.class)
            .run((context) -> {
                long id = context.getBean(QueueTemplate.class).send("commit-fails", new Item("orphan"));

                await().atMost(Duration.ofSeconds(15)).until(() -> "dead".equals(jobs.row(id).get("state")));

                Map<String, Object> row = jobs.row(id);
                assertThat(row.get("attempts")).isEqualTo(3);
                assertThat((String) row.get("last_error")).contains("child_parent_id_fkey");
                assertThat(context.getBean(DeferredViolation.class).calls).hasValue(3);
                assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM child", Long.class)).isZero();
            });
    }

    static class Recorder {

        final List<String> handled = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "acks", concurrency = "8", batchSize = "20")
        void handle(Item item) {
            handled.add(item.name());
        }
    }

    @Test
    void anAcknowledgementTheDatabaseRefusesHoldsBackNoOtherJob() {
        Recorder recorder = new Recorder();
        runner.withBean(Recorder.class, () -> recorder).run((context) -> {
            // after pgqueue migrated its tables: a trigger that refuses to delete one job's row
            jobs.jdbc().execute("""
                    CREATE FUNCTION refuse_poisoned_delete() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF OLD.payload ->> 'name' = 'poisoned' THEN
                            RAISE EXCEPTION 'this row refuses to go';
                        END IF;
                        RETURN OLD;
                    END $$;
                    CREATE TRIGGER refuse_poisoned_delete BEFORE DELETE ON pgqueue.job
                        FOR EACH ROW EXECUTE FUNCTION refuse_poisoned_delete();
                    """);
            try {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.send("acks", new Item("poisoned"));
                for (int i = 0; i < 200; i++) {
                    template.send("acks", new Item("job-" + i));
                }

                await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("acks") == 1);
                assertThat(jobs.rows("acks")).singleElement()
                    .satisfies((row) -> assertThat(row.get("payload").toString()).contains("poisoned"));
                // the refused one may have run again already, once its lease expired and it was rescued
                assertThat(new java.util.HashSet<>(recorder.handled)).hasSize(201).contains("poisoned");
            }
            finally {
                jobs.jdbc().execute("DROP TRIGGER refuse_poisoned_delete ON pgqueue.job; "
                        + "DROP FUNCTION refuse_poisoned_delete()");
            }
        });
    }

    @Test
    void aRowCannotMakeAnOpenlyTypedListenerInstantiateAnUntrustedClass() {
        BadInputCatalogueTests.AnythingListener listener = new BadInputCatalogueTests.AnythingListener();
        runner.withBean(BadInputCatalogueTests.AnythingListener.class, () -> listener).run((context) -> {
            long gadget = jobs.insertRaw("anything", "\"file:///etc/passwd\"",
                    "org.springframework.core.io.FileSystemResource");
            long own = jobs.insertRaw("anything", "{\"name\": \"mine\"}", Item.class.getName());

            await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(jobs.row(gadget).get("state")));
            await().atMost(Duration.ofSeconds(10)).until(() -> listener.received.size() == 1);

            assertThat((String) jobs.row(gadget).get("last_error")).contains("not trusted")
                .contains("org.springframework.core.io.FileSystemResource")
                .contains("pgqueue.listener.trusted-packages");
            assertThat(listener.received).containsExactly(new Item("mine"));
            assertThat(jobs.count("anything", "ready")).isZero();
            assertThat(own).isPositive();
        });
    }

    @Test
    void aTrustedPackageLetsAnOpenlyTypedListenerReceiveItsTypes() {
        BadInputCatalogueTests.AnythingListener listener = new BadInputCatalogueTests.AnythingListener();
        runner.withPropertyValues("pgqueue.listener.trusted-packages=org.springframework.util")
            .withBean(BadInputCatalogueTests.AnythingListener.class, () -> listener)
            .run((context) -> {
                jobs.insertRaw("anything", "{}", "org.springframework.util.LinkedMultiValueMap");

                await().atMost(Duration.ofSeconds(10)).until(() -> listener.received.size() == 1);

                assertThat(listener.received.get(0)).isInstanceOf(org.springframework.util.LinkedMultiValueMap.class);
            });
    }

    /** A handler that ignores interruption and ends only when told, recording when it did. */
    static class Stubborn {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch finish = new CountDownLatch(1);

        final AtomicReference<Instant> endedAt = new AtomicReference<>();

        final List<Instant> startedAt = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "stubborn", concurrency = "1", batchSize = "1")
        void handle(Item item) {
            startedAt.add(Instant.now());
            started.countDown();
            boolean done = false;
            while (!done) {
                try {
                    done = finish.await(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException ignored) {
                    // this handler does not stop when asked
                }
            }
            endedAt.set(Instant.now());
        }
    }

    @Test
    void shutdownNeverGivesBackAJobWhoseHandlerIsStillRunning() {
        Stubborn stopping = new Stubborn();
        Stubborn other = new Stubborn();
        other.finish.countDown();
        ApplicationContextRunner nodes = runner.withPropertyValues("pgqueue.listener.shutdown-timeout=300ms",
                "pgqueue.listener.lease-duration=3s", "pgqueue.listener.node-timeout=5s");
        nodes.withBean(Stubborn.class, () -> stopping).run((a) -> {
            long id = a.getBean(QueueTemplate.class).send("stubborn", new Item("long"));
            assertThat(stopping.started.await(10, TimeUnit.SECONDS)).isTrue();
            nodes.withBean(Stubborn.class, () -> other).run((b) -> {
                // the first node shuts down: its handler ignores the interruption and goes on running
                a.close();
                assertThat(stopping.endedAt.get()).isNull();
                assertThat(jobs.row(id).get("state")).isEqualTo("running");

                stopping.finish.countDown();
                await().atMost(Duration.ofSeconds(20)).until(() -> other.startedAt.size() == 1);
                assertThat(other.startedAt.get(0)).as("the other node ran the job only after the first handler ended")
                    .isAfter(stopping.endedAt.get());
            });
        });
    }

    /** Two transactional workers: the urgent job holds its transaction open until the other job was handled. */
    static class LongTransaction {

        final CountDownLatch otherHandled = new CountDownLatch(1);

        final List<String> order = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "tx-promote", mode = "TRANSACTIONAL", concurrency = "2", batchSize = "1")
        void handle(Item item) throws InterruptedException {
            if (item.name().equals("urgent")) {
                boolean seen = otherHandled.await(10, TimeUnit.SECONDS);
                order.add("urgent done, other seen meanwhile: " + seen);
            }
            else {
                order.add(item.name());
                otherHandled.countDown();
            }
        }
    }

    @Test
    void jobsThatBecomeDueAreNotHiddenInsideAHandlersTransaction() {
        LongTransaction handler = new LongTransaction();
        runner.withBean(LongTransaction.class, () -> handler).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            Duration delay = Duration.ofMillis(500);
            template.send("tx-promote", new Item("urgent"), io.pgqueue.SendOptions.builder().delay(delay).priority(9).build());
            template.send("tx-promote", new Item("other"), io.pgqueue.SendOptions.builder().delay(delay).build());

            await().atMost(Duration.ofSeconds(20)).until(() -> handler.order.size() == 2);

            assertThat(handler.order).containsExactly("other", "urgent done, other seen meanwhile: true");
        });
    }

    static class NulInMessage {

        @QueueListener(queue = "nul", mode = "TRANSACTIONAL", maxAttempts = "2")
        void handle(Item item) {
            throw new IllegalStateException("device sent a bad\u0000byte");
        }
    }

    @Test
    void anErrorTextPostgresqlCannotStoreStillRecordsTheFailure() {
        runner.withBean(NulInMessage.class).run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("nul", new Item("x"));

            await().atMost(Duration.ofSeconds(15)).until(() -> "dead".equals(jobs.row(id).get("state")));

            assertThat(jobs.row(id).get("attempts")).isEqualTo(2);
            assertThat((String) jobs.row(id).get("last_error")).contains("device sent a bad").contains("byte");
        });
    }

    static class Pinged {

        final CountDownLatch received = new CountDownLatch(1);

        @QueueListener(queue = "long-schema")
        void handle(Item item) {
            received.countDown();
        }
    }

    @Test
    void aSchemaNameOfMaximumLengthStillNotifies() {
        String schema = "s".repeat(63);
        Pinged pinged = new Pinged();
        ApplicationContextRunner longSchema = runner.withPropertyValues("pgqueue.schema.name=" + schema,
                "pgqueue.listener.poll-interval=30s");
        longSchema.withBean(Pinged.class, () -> pinged).run((listening) -> {
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> listening.getBean(io.pgqueue.internal.wakeup.Wakeups.class).isListening());
            // sent from another application: only a NOTIFY can wake the listener before its 30 s poll
            longSchema.run((sending) -> sending.getBean(QueueTemplate.class).send("long-schema", new Item("x")));
            assertThat(pinged.received.await(10, TimeUnit.SECONDS)).isTrue();
        });
    }

    @Test
    void anUnparsableScheduleRowHoldsBackNoOtherSchedule() {
        runner.withPropertyValues("pgqueue.scheduler.poll-interval=100ms").run((context) -> {
            jobs.jdbc().update("INSERT INTO pgqueue.schedule (name, queue, cron, zone, next_run_at, missed) "
                    + "VALUES ('a-broken', 'broken', 'not a cron', 'UTC', now() - interval '2 minutes', 'FIRE_ONCE')");
            jobs.jdbc().update("INSERT INTO pgqueue.schedule (name, queue, fixed_rate_ms, zone, next_run_at, missed) "
                    + "VALUES ('b-healthy', 'healthy', 60000, 'UTC', now() - interval '1 minute', 'FIRE_ONCE')");

            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("healthy") == 1);
            assertThat(jobs.count("broken")).isZero();
        });
    }

    @Test
    void keysAndHeadersBeyondTheirLimitsAreRefusedWithTheLimit() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> io.pgqueue.SendOptions.builder().dedupKey("k".repeat(513)))
            .withMessageContaining("dedupKey must not exceed 512 characters");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> io.pgqueue.SendOptions.builder().groupKey("g".repeat(513)))
            .withMessageContaining("groupKey must not exceed 512 characters");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> io.pgqueue.SendOptions.builder().header("big", "v".repeat(20_000)))
            .withMessageContaining("headers must not exceed 16384 characters");
    }

    @Test
    void aStatementWaitingOnALockGivesUpAfterTheStatementTimeout() throws Exception {
        runner.withPropertyValues("pgqueue.statement-timeout=1s").run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            try (java.sql.Connection blocker = database.connect()) {
                blocker.setAutoCommit(false);
                blocker.createStatement().execute("LOCK TABLE pgqueue.job IN ACCESS EXCLUSIVE MODE");
                Instant start = Instant.now();
                org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20),
                        () -> org.assertj.core.api.Assertions
                            .assertThatExceptionOfType(org.springframework.dao.QueryTimeoutException.class)
                            .isThrownBy(() -> template.send("blocked", new Item("waits"))));
                assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(10));
                blocker.rollback();
            }
            assertThat(template.send("blocked", new Item("goes through"))).isPositive();
        });
    }

    static class Fatal {

        @QueueListener(queue = "fatal", concurrency = "1")
        void handle(Item item) {
        }
    }

    /**
     * A bug that still kills a container thread: an observer throwing an Error. (A handler's own Error no longer
     * does: FatalErrorTests.)
     */
    static class BrokenObserver implements JobObserver {

        @Override
        public void started(JobContext job) {
            throw new AssertionError("observer bug");
        }
    }

    @Test
    void aContainerThreadKilledByAnErrorShowsInHealth() {
        runner.withBean(Fatal.class).withBean(BrokenObserver.class).run((context) -> {
            io.pgqueue.config.QueueListenerContainerRegistry registry = context
                .getBean(io.pgqueue.config.QueueListenerContainerRegistry.class);
            io.pgqueue.actuate.PgQueueHealthIndicator health = new io.pgqueue.actuate.PgQueueHealthIndicator(
                    context.getBean(io.pgqueue.admin.QueueAdmin.class), registry, null,
                    org.springframework.boot.health.contributor.Status.OUT_OF_SERVICE);
            assertThat(health.health().getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.UP);

            context.getBean(QueueTemplate.class).send("fatal", new Item("boom"));

            await().atMost(Duration.ofSeconds(10))
                .until(() -> health.health().getStatus().equals(org.springframework.boot.health.contributor.Status.DOWN));
            assertThat(health.health().getDetails()).containsKey("stoppedContainers");
        });
    }
}
