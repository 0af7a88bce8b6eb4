package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.Containers;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A handler that ends in an {@link Error} among good jobs: a {@link StackOverflowError} is a failure like any
 * other (counted, retried, dead after max-attempts); an error of the JVM ({@link OutOfMemoryError}) rolls the
 * TRANSACTIONAL transaction back whole, is counted as the job's failed attempt, and the worker is replaced.
 * Either way the good jobs all run and the container keeps running: no poison job stops the queue.
 */
class FatalErrorTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FatalErrorTests.class);

    private static final int POISON = -1;

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.max-attempts=3", "pgqueue.listener.backoff.initial=10ms");

    private final Jobs jobs = new Jobs(database.dataSource());

    @BeforeAll
    static void createBusinessTable() {
        new JdbcTemplate(database.dataSource()).execute("CREATE TABLE side_effect (queue text)");
    }

    /** Recurses without end on the poison payload. */
    static class DeepHandler {

        final Set<Integer> handled = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "deep-tx", mode = "TRANSACTIONAL", concurrency = "2", batchSize = "5")
        void transactional(Integer n) {
            handle(n);
        }

        @QueueListener(queue = "deep-lease", concurrency = "2", batchSize = "5")
        void lease(Integer n) {
            handle(n);
        }

        private void handle(Integer n) {
            if (n == POISON) {
                recurse(0);
            }
            handled.add(n);
        }

        private static int recurse(int depth) {
            return recurse(depth + 1) + 1;
        }
    }

    /** Runs out of memory (as far as it can tell) on the poison payload, after writing a row. */
    static class OutOfMemoryHandler {

        final Set<Integer> handled = ConcurrentHashMap.newKeySet();

        final JdbcTemplate jdbc;

        /** On the application's DataSource: TRANSACTIONAL writes join the claim's transaction. */
        OutOfMemoryHandler(javax.sql.DataSource dataSource) {
            this.jdbc = new JdbcTemplate(dataSource);
        }

        /**
         * One worker: with two, the other may take the job in the moment between the rollback to the claim's
         * savepoint (which releases the row lock the claim took) and the failure's record, run it again and have
         * that run go uncounted — a gap of TRANSACTIONAL failure recording older than this test, not what it
         * is about. One worker also shows the replaced thread carrying the queue on alone.
         */
        @QueueListener(queue = "oom-tx", mode = "TRANSACTIONAL", concurrency = "1", batchSize = "5")
        void transactional(Integer n) {
            handle(n, "oom-tx");
        }

        @QueueListener(queue = "oom-lease", concurrency = "2", batchSize = "5")
        void lease(Integer n) {
            handle(n, "oom-lease");
        }

        private void handle(Integer n, String queue) {
            if (n == POISON) {
                jdbc.update("INSERT INTO side_effect (queue) VALUES (?)", queue);
                throw new OutOfMemoryError("simulated: Java heap space");
            }
            handled.add(n);
        }
    }

    @Test
    void aStackOverflowInATransactionalHandlerIsCountedRetriedAndDeadWhileTheGoodJobsRun() {
        DeepHandler handler = new DeepHandler();
        runner.withBean(DeepHandler.class, () -> handler).run((context) -> {
            assertPoisonDeadAndGoodJobsRun(context, "deep-tx", handler.handled, StackOverflowError.class);
            assertThat(Containers.of(context, "deep-tx").fatalErrors()).isZero();
        });
    }

    @Test
    void aStackOverflowInALeaseHandlerIsCountedRetriedAndDeadWhileTheGoodJobsRun() {
        DeepHandler handler = new DeepHandler();
        runner.withBean(DeepHandler.class, () -> handler).run((context) -> {
            assertPoisonDeadAndGoodJobsRun(context, "deep-lease", handler.handled, StackOverflowError.class);
        });
    }

    @Test
    void anErrorOfTheJvmInATransactionalHandlerRollsBackCountsTheAttemptAndReplacesTheWorker() {
        runner.withBean(OutOfMemoryHandler.class).run((context) -> {
            OutOfMemoryHandler handler = context.getBean(OutOfMemoryHandler.class);
            assertPoisonDeadAndGoodJobsRun(context, "oom-tx", handler.handled, OutOfMemoryError.class);
            assertThat(Containers.of(context, "oom-tx").fatalErrors()).isEqualTo(3);
            // nothing the handler wrote before the error committed
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM side_effect WHERE queue = 'oom-tx'", Long.class))
                .isZero();
        });
    }

    @Test
    void anErrorOfTheJvmInALeaseHandlerCountsTheAttemptAndTheContainerKeepsRunning() {
        runner.withBean(OutOfMemoryHandler.class).run((context) -> {
            OutOfMemoryHandler handler = context.getBean(OutOfMemoryHandler.class);
            assertPoisonDeadAndGoodJobsRun(context, "oom-lease", handler.handled, OutOfMemoryError.class);
            assertThat(Containers.of(context, "oom-lease").fatalErrors()).isEqualTo(3);
            // no transaction around a LEASE handler: its write stays, once per attempt
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM side_effect WHERE queue = 'oom-lease'", Long.class))
                .isEqualTo(3);
        });
    }

    private void assertPoisonDeadAndGoodJobsRun(ApplicationContext context, String queue, Set<Integer> handled,
            Class<? extends Error> error) {
        QueueTemplate template = context.getBean(QueueTemplate.class);
        long poison = template.send(queue, POISON);
        List<Integer> good = IntStream.range(0, 100).boxed().toList();
        template.sendBatch(queue, good);

        await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 100
                && "dead".equals(jobs.row(poison).get("state")));

        Map<String, Object> row = jobs.row(poison);
        assertThat(row.get("attempts")).isEqualTo(3);
        assertThat((String) row.get("last_error")).contains(error.getName());
        assertThat(jobs.count(queue)).as("only the dead poison job is left").isEqualTo(1);
        QueueListenerContainer container = Containers.of(context, queue);
        assertThat(container.isRunning()).isTrue();
        // the container still takes new work after the poison job
        long after = template.send(queue, 1000);
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains(1000));
        assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job WHERE id = ?", Long.class, after))
            .isZero();
    }
}
