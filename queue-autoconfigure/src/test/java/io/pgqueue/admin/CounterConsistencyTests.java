package io.pgqueue.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import io.pgqueue.JobRequest;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.internal.node.NodeIdentity;
import io.pgqueue.internal.persistence.Claim;
import io.pgqueue.internal.persistence.ClaimRequest;
import io.pgqueue.internal.persistence.ClaimUndo;
import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.internal.persistence.Completion;
import io.pgqueue.internal.persistence.FailureUpdate;
import io.pgqueue.internal.persistence.JobAdminPort;
import io.pgqueue.internal.persistence.JobEnginePort;
import io.pgqueue.internal.persistence.JobMaintenancePort;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.persistence.Transition;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.model.QueueCounts;
import io.pgqueue.model.QueueStats;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.workflow.DependencyPolicy;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The counters equal COUNT(*) of the job table after any mix of every transition from several threads, and
 * every change of a job's state is one its statement declares in the transition table.
 */
class CounterConsistencyTests {

    private static final TestDatabase database = TestPostgres.createDatabase(CounterConsistencyTests.class);

    private static final List<String> QUEUES = List.of("alpha", "beta", "gamma");

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.maintenance.enabled=false");

    /** A business table whose rows enqueue a job through pgqueue.send() from a trigger. */
    private static final String TRIGGERED = """
            CREATE TABLE public.placed_order (queue text NOT NULL, n integer NOT NULL);
            CREATE FUNCTION public.enqueue_order() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pgqueue.send(NEW.queue, jsonb_build_object('n', NEW.n));
                RETURN NEW;
            END $$;
            CREATE TRIGGER enqueue_order AFTER INSERT ON public.placed_order
                FOR EACH ROW EXECUTE FUNCTION public.enqueue_order();
            """;

    /**
     * Statements that enqueue through the SQL function, directly or from a trigger: their text carries no tag
     * (the function's own statement does, held to the generated ENQUEUE text by SqlEnqueueTests).
     */
    private static final Pattern SQL_SEND = Pattern.compile("pgqueue\\.send\\(|INSERT INTO public\\.placed_order");

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    /** The ways of enqueueing the mix used, beyond QueueTemplate's plain sends. */
    private final Set<String> enqueueWays = ConcurrentHashMap.newKeySet();

    /** The queue a real listener works on during the mix: its jobs time out, snooze, fail or complete. */
    static final String LISTENED = "delta";

    /** By payload: 0 overruns its timeout, 1 snoozes once, 2 fails, 3 completes. */
    static class Unreliable {

        private final Set<Long> snoozed = ConcurrentHashMap.newKeySet();

        @io.pgqueue.annotation.QueueListener(queue = LISTENED, concurrency = "4", timeout = "100ms", maxAttempts = "2")
        void handle(int kind, io.pgqueue.listener.JobContext job) throws InterruptedException {
            switch (Math.floorMod(kind, 4)) {
                case 0 -> Thread.sleep(2_000);
                case 1 -> {
                    if (snoozed.add(job.id())) {
                        job.snooze(Duration.ofMillis(10));
                    }
                }
                case 2 -> throw new IllegalStateException("unreliable");
                default -> {
                }
            }
        }
    }

    /** The fair claims among the writers: LEASE with per-key caps, and TRANSACTIONAL; the same random outcomes. */
    static class FairUnreliable {

        private final Unreliable outcomes = new Unreliable();

        @io.pgqueue.annotation.QueueListener(queue = "fair-walk", concurrency = "4", timeout = "100ms", maxAttempts = "2")
        void fair(int kind, io.pgqueue.listener.JobContext job) throws InterruptedException {
            outcomes.handle(kind, job);
        }

        @io.pgqueue.annotation.QueueListener(queue = "fair-walk-tx", mode = "transactional", concurrency = "2",
                batchSize = "3", maxAttempts = "2")
        void fairTransactional(int kind, io.pgqueue.listener.JobContext job) {
            if (Math.floorMod(kind, 4) == 2) {
                throw new IllegalStateException("unreliable");
            }
        }
    }

    /** Keyed sends to the fair queues, single and in batches, some delayed, while the other writers run. */
    private static void sendKeyed(org.springframework.context.ApplicationContext context, Random random,
            CountDownLatch done)
            throws InterruptedException {
        QueueTemplate template = context.getBean(QueueTemplate.class);
        while (!done.await(5, TimeUnit.MILLISECONDS)) {
            String queue = random.nextBoolean() ? "fair-walk" : "fair-walk-tx";
            SendOptions.Builder options = SendOptions.builder()
                .fairnessKey("tenant-" + random.nextInt(5));
            if (random.nextInt(4) == 0) {
                options.delay(Duration.ofMillis(random.nextInt(50)));
            }
            if (random.nextBoolean()) {
                template.send(queue, random.nextInt(4) == 0 ? 3 : random.nextInt(4), options.build());
            }
            else {
                template.sendBatch(queue, List.of(JobRequest.of(1, options.build()),
                        JobRequest.of(2, options.build()), JobRequest.of(3, options.build())));
            }
        }
    }

    @Test
    void randomOperationsFromSeveralThreadsLeaveCountersEqualToCountStar() throws Exception {
        long seed = System.nanoTime();
        Set<Transition> driven = ConcurrentHashMap.newKeySet();
        enqueueWays.clear();
        runner.withPropertyValues("pgqueue.listener.heartbeat-interval=200ms", "pgqueue.listener.poll-interval=100ms",
                "pgqueue.listener.backoff.initial=10ms", "pgqueue.listener.backoff.jitter=0",
                // schedule ticks among the writers: the scheduler's own and triggered ones
                "pgqueue.scheduler.poll-interval=50ms", "pgqueue.schedules.tick.queue=alpha",
                "pgqueue.schedules.tick.fixed-rate=100ms")
            .withPropertyValues("pgqueue.queues.fair-walk.fairness.max-running-per-key=1",
                    "pgqueue.queues.fair-walk.fairness.weights.tenant-0=3", "pgqueue.queues.fair-walk-tx.fairness.enabled=true")
            .withBean(Unreliable.class, Unreliable::new)
            .withBean(FairUnreliable.class, FairUnreliable::new)
            .run((context) -> {
            installStateChangeLog();
            jdbc.execute(TRIGGERED);
            int threads = 6;
            ExecutorService pool = Executors.newFixedThreadPool(threads + 2);
            CountDownLatch done = new CountDownLatch(threads);
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    Random random = new Random(seed + t);
                    workers.add(pool.submit(() -> {
                        try {
                            new Operator(context, random, driven, enqueueWays).run(150);
                        }
                        finally {
                            done.countDown();
                        }
                        return null;
                    }));
                }
                // fold and promote concurrently with the writers, as the maintenance task does
                Future<?> maintenance = pool.submit(() -> {
                    Repositories repositories = context.getBean(Repositories.class);
                    while (!done.await(20, TimeUnit.MILLISECONDS)) {
                        repositories.maintenance().promoteDue(50);
                        repositories.stats().squeeze();
                    }
                    return null;
                });
                Future<?> keyed = pool.submit(() -> {
                    sendKeyed(context, new Random(seed - 1), done);
                    return null;
                });
                for (Future<?> worker : workers) {
                    worker.get(120, TimeUnit.SECONDS);
                }
                maintenance.get(30, TimeUnit.SECONDS);
                keyed.get(30, TimeUnit.SECONDS);
            }
            finally {
                pool.shutdownNow();
            }
            // the listener's jobs all end: completed, dead or cancelled (timeouts, snoozes and failures on the way)
            await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM pgqueue.job WHERE queue IN (?, 'fair-walk', 'fair-walk-tx') AND state <> 'dead'",
                    Long.class, LISTENED) == 0);
            // (the fair queues' jobs ended too: no key was left inactive under a ready job)
            context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).stop();
            // every writer stops before the counters and COUNT(*) are read, one after the other: a schedule's
            // tick between the two reads would show as a difference
            context.getBean(io.pgqueue.internal.schedule.RecurringJobRunner.class).stop();

            context.getBean(Repositories.class).stats().squeeze();
            assertThat(countersByState(context)).as("counters vs COUNT(*), seed " + seed).isEqualTo(countStar());
            assertThat(context.getBean(QueueAdmin.class).reconcile()).as("drift, seed " + seed).isEmpty();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class)).isPositive();
            assertEveryStateChangeIsDeclared();
            assertWorkflowCountsEqualCountStar(context);
            assertBatchCountsAndCallbacksFollowTheirRows(context);
        });
        assertThat(driven).as("transitions driven").containsExactlyInAnyOrder(Transition.values());
        for (String cascade : List.of("unblock", "cancel_dependants")) {
            assertThat(jdbc.queryForObject("SELECT count(*) FROM public.state_change_log WHERE query LIKE ?", Long.class,
                    "%pgqueue:" + cascade + " */%")).as("state changes made by " + cascade).isPositive();
        }
        for (String way : List.of("debounce", "dedup window", "pgqueue.send", "trigger", "schedule")) {
            assertThat(enqueueWays).as("enqueued by " + way).contains(way);
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM public.state_change_log WHERE query LIKE '%placed_order%'",
                Long.class)).as("jobs enqueued by the trigger").isPositive();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM public.state_change_log WHERE query LIKE '%snooze */%'",
                Long.class)).as("snoozes by the listener").isPositive();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM public.state_change_log WHERE query LIKE '%pgqueue:fail */%' "
                + "AND old_state = 'running'", Long.class)).as("failures by the listener, timeouts among them").isPositive();
    }

    /** Logs every change of job.state with the statement that made it (a trigger, in this test only). */
    private void installStateChangeLog() {
        jdbc.execute("""
                CREATE TABLE public.state_change_log (query text, old_state text, new_state text);
                CREATE TABLE public.purged_member (batch_id bigint);
                CREATE FUNCTION public.log_state_change() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO public.state_change_log
                    VALUES (current_query(), CASE WHEN TG_OP <> 'INSERT' THEN OLD.state END,
                            CASE WHEN TG_OP <> 'DELETE' THEN NEW.state END);
                    -- a dead member purged or expired stays counted as dead in its batch
                    IF TG_OP = 'DELETE' AND OLD.state = 'dead' AND OLD.batch_id IS NOT NULL THEN
                        INSERT INTO public.purged_member VALUES (OLD.batch_id);
                    END IF;
                    RETURN NULL;
                END $$;
                CREATE TRIGGER log_state_change AFTER INSERT OR DELETE OR UPDATE OF state ON pgqueue.job
                    FOR EACH ROW EXECUTE FUNCTION public.log_state_change();
                """);
    }

    /**
     * Every logged state change was made by a statement tagged with a transition that declares it: from its
     * from-state (none, or a finished one, for an insert) to one of its to-states (none when the row leaves the table).
     */
    private void assertEveryStateChangeIsDeclared() {
        Pattern tag = Pattern.compile("/\\* pgqueue:([a-z_]+) \\*/");
        List<Map<String, Object>> changes = jdbc.queryForList(
                "SELECT DISTINCT query, old_state, new_state FROM public.state_change_log");
        assertThat(changes).isNotEmpty();
        for (Map<String, Object> change : changes) {
            String query = (String) change.get("query");
            JobState from = (change.get("old_state") != null) ? JobState.of((String) change.get("old_state")) : null;
            JobState to = (change.get("new_state") != null) ? JobState.of((String) change.get("new_state")) : null;
            List<Transition> declared = new ArrayList<>();
            Matcher matcher = tag.matcher(query);
            while (matcher.find()) {
                declared.add(Transition.valueOf(matcher.group(1).toUpperCase(Locale.ROOT)));
            }
            if (declared.isEmpty() && SQL_SEND.matcher(query).find()) {
                declared.add(Transition.ENQUEUE);
            }
            assertThat(declared).as("transition of a statement that changed a job from %s to %s: %s", from, to, query)
                .isNotEmpty()
                .anySatisfy((transition) -> {
                    if (from == null) {
                        // an insert: of a new job, or of a finished one put back (a claim undone in its transaction)
                        assertThat(transition.from()).allMatch(JobState::isFinished);
                    }
                    else {
                        assertThat(transition.from()).contains(from);
                    }
                    if (to == null) {
                        assertThat(transition.finishes()).isTrue();
                    }
                    else {
                        assertThat(transition.to()).contains(to);
                    }
                });
        }
    }

    @Test
    void reconciliationRepairsDriftMadeBehindPgqueuesBack() {
        runner.run((context) -> {
            context.getBean(QueueTemplate.class).sendBatch("drifty", List.of(1, 2, 3));
            jdbc.update("DELETE FROM pgqueue.job WHERE id = (SELECT min(id) FROM pgqueue.job WHERE queue = 'drifty')");

            List<QueueCounts> drift = context.getBean(QueueAdmin.class).reconcile();

            assertThat(drift).singleElement().satisfies((d) -> {
                assertThat(d.queue()).isEqualTo("drifty");
                assertThat(d.ready()).isEqualTo(-1);
            });
            assertThat(context.getBean(QueueAdmin.class).queue("drifty").orElseThrow().counts().ready()).isEqualTo(2);
        });
    }

    @Test
    void concurrentReconcilesOnSeveralNodesRepairDriftOnce() throws Exception {
        runner.run((context) -> {
            context.getBean(QueueTemplate.class).sendBatch("twice", List.of(1, 2, 3, 4, 5));
            jdbc.update("DELETE FROM pgqueue.job WHERE queue = 'twice'");
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            int nodes = 4;
            ExecutorService pool = Executors.newFixedThreadPool(nodes);
            CountDownLatch start = new CountDownLatch(1);
            try {
                List<Future<List<QueueCounts>>> reconciles = new ArrayList<>();
                for (int i = 0; i < nodes; i++) {
                    reconciles.add(pool.submit(() -> {
                        start.await();
                        return admin.reconcile();
                    }));
                }
                start.countDown();
                long corrections = 0;
                for (Future<List<QueueCounts>> reconcile : reconciles) {
                    corrections += reconcile.get(30, TimeUnit.SECONDS).size();
                }
                assertThat(corrections).as("reconciles that found the drift").isOne();
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(admin.queue("twice").orElseThrow().counts().ready()).isZero();
            assertThat(countersByState(context)).isEqualTo(countStar());
        });
    }

    @Test
    void concurrentEnqueuesIntoOneQueueDoNotWaitForEachOther() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            CountDownLatch firstSent = new CountDownLatch(1);
            CountDownLatch secondCommitted = new CountDownLatch(1);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> first = pool.submit(() -> transactions.execute((status) -> {
                    template.send("busy", "first");
                    firstSent.countDown();
                    try {
                        // stay open until the second transaction committed: it must not need our locks
                        return secondCommitted.await(10, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }));
                assertThat(firstSent.await(10, TimeUnit.SECONDS)).isTrue();

                transactions.executeWithoutResult((status) -> template.send("busy", "second"));
                secondCommitted.countDown();

                assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
                assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'busy'", Long.class))
                    .isEqualTo(2);
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    /**
     * Each batch's aggregate and shards equal what its rows say (active and dead members in the job table, dead
     * ones purged or expired since counted as dead), and
     * its callbacks fired exactly when their events happened: a sealed batch that was not cancelled fired
     * onComplete iff no member is active (or, once fired, a dead member was retried after it: the random retries
     * of dead jobs do that now and then), onSuccess iff every member completed, onFirstDeath iff a member ever died,
     * onCannotSucceed iff one ever died or was cancelled; an open batch fired nothing.
     */
    private void assertBatchCountsAndCallbacksFollowTheirRows(ApplicationContext context) {
        context.getBean(Repositories.class).batches().squeeze();
        List<Map<String, Object>> mismatches = jdbc.queryForList("""
                WITH members AS (
                    SELECT b.id, b.state,
                           (SELECT count(*) FROM pgqueue.job j WHERE j.batch_id = b.id AND j.state <> 'dead') AS active,
                           (SELECT count(*) FROM pgqueue.job j WHERE j.batch_id = b.id AND j.state = 'dead')
                           + (SELECT count(*) FROM public.purged_member p WHERE p.batch_id = b.id) AS dead,
                           (SELECT sum(unfinished) FROM pgqueue.batch_slot s WHERE s.batch_id = b.id) AS unfinished,
                           (SELECT sum(uncompleted) FROM pgqueue.batch_slot s WHERE s.batch_id = b.id) AS uncompleted,
                           (SELECT sum(deaths) FROM pgqueue.batch_slot s WHERE s.batch_id = b.id) AS deaths,
                           (SELECT sum(failures) FROM pgqueue.batch_slot s WHERE s.batch_id = b.id) AS failures,
                           c.active AS c_active, c.dead AS c_dead, c.completed AS c_completed,
                           c.cancelled AS c_cancelled,
                           (SELECT array_agg(event ORDER BY event) FROM pgqueue.batch_callback k
                            WHERE k.batch_id = b.id AND k.state = 'fired') AS fired
                    FROM pgqueue.batch b LEFT JOIN pgqueue.batch_counter c ON c.batch_id = b.id
                )
                SELECT * FROM members
                WHERE active <> coalesce(c_active, 0) OR dead <> coalesce(c_dead, 0) OR active <> unfinished
                   OR uncompleted <> coalesce(c_active, 0) + coalesce(c_dead, 0) + coalesce(c_cancelled, 0)
                   OR fired IS DISTINCT FROM (CASE WHEN state = 'open' THEN NULL
                                                   WHEN state = 'cancelled' THEN fired ELSE NULLIF(ARRAY(
                        SELECT e FROM unnest(ARRAY['cannot_succeed', 'complete', 'first_death', 'success']) AS e
                        WHERE (e = 'success' AND uncompleted = 0)
                           -- onComplete fired once every member finished; a dead member retried after it makes the
                           -- batch unfinished again without taking the callback back (docs/batches.md)
                           OR (e = 'complete' AND (unfinished = 0 OR (deaths > 0 AND 'complete' = ANY(coalesce(fired, '{}')))))
                           OR (e = 'first_death' AND deaths > 0) OR (e = 'cannot_succeed' AND failures > 0)
                        ORDER BY e), '{}') END)""");
        assertThat(mismatches).as("batches whose counts, shards or callbacks differ from their rows").isEmpty();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.batch WHERE state <> 'open'", Long.class))
            .isPositive();
    }

    /**
     * Each workflow's aggregate equals what its rows say: waiting, active (scheduled, ready, running) and dead
     * jobs, completed and cancelled nodes; and every edge left waits on a live child.
     */
    private void assertWorkflowCountsEqualCountStar(ApplicationContext context) {
        Repositories repositories = context.getBean(Repositories.class);
        repositories.workflows().squeeze();
        List<Map<String, Object>> mismatches = jdbc.queryForList("""
                WITH actual AS (
                    SELECT n.workflow_id,
                           count(*) FILTER (WHERE n.state IS NULL AND j.state = 'waiting') AS waiting,
                           count(*) FILTER (WHERE n.state IS NULL AND j.state IN ('scheduled', 'ready', 'running')) AS active,
                           count(*) FILTER (WHERE n.state IS NULL AND j.state = 'dead') AS dead,
                           count(*) FILTER (WHERE n.state = 'completed') AS completed,
                           count(*) FILTER (WHERE n.state = 'cancelled' OR (n.state IS NULL AND j.id IS NULL)) AS cancelled
                    FROM pgqueue.workflow_node n LEFT JOIN pgqueue.job j ON j.id = n.job_id
                    GROUP BY n.workflow_id
                )
                SELECT a.*, c.waiting AS c_waiting, c.active AS c_active, c.dead AS c_dead,
                       c.completed AS c_completed, c.cancelled AS c_cancelled
                FROM actual a LEFT JOIN pgqueue.workflow_counter c ON c.workflow_id = a.workflow_id
                WHERE (a.waiting, a.active, a.dead, a.completed, a.cancelled)
                      IS DISTINCT FROM (c.waiting, c.active, c.dead, c.completed, c.cancelled)""");
        assertThat(mismatches).as("workflows whose counts differ from their rows").isEmpty();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.workflow", Long.class)).isPositive();
        assertThat(jdbc.queryForObject("""
                SELECT count(*) FROM pgqueue.job_dependency d
                WHERE NOT EXISTS (SELECT 1 FROM pgqueue.job c WHERE c.id = d.child_id AND c.state = 'waiting')""",
                Long.class)).as("edges whose child is not waiting").isZero();
        assertThat(jdbc.queryForObject("""
                SELECT count(*) FROM pgqueue.job c
                WHERE c.state = 'waiting' AND c.pending_parents <> (SELECT count(*) FROM pgqueue.job_dependency d
                                                                     WHERE d.child_id = c.id)""",
                Long.class)).as("waiting jobs whose pending parents are not their edges").isZero();
    }

    private Map<String, Long> countersByState(ApplicationContext context) {
        Map<String, Long> counts = new TreeMap<>();
        for (QueueStats stats : context.getBean(QueueAdmin.class).queues()) {
            for (JobState state : JobState.live()) {
                long count = stats.counts().count(state);
                if (count != 0) {
                    counts.put(stats.queue() + "/" + state.value(), count);
                }
            }
        }
        return counts;
    }

    private Map<String, Long> countStar() {
        Map<String, Long> counts = new TreeMap<>();
        jdbc.query("SELECT queue, state, count(*) AS n FROM pgqueue.job GROUP BY queue, state",
                (rows) -> {
                    counts.put(rows.getString("queue") + "/" + rows.getString("state"), rows.getLong("n"));
                });
        return counts;
    }

    /** One thread's random walk through every transition of the job lifecycle. */
    private static final class Operator {

        private final QueueTemplate template;

        private final Repositories repositories;

        private final JobEnginePort engine;

        private final JobMaintenancePort maintenance;

        private final JobAdminPort jobAdmin;

        private final QueueAdmin admin;

        private final TransactionTemplate transactions;

        private final Random random;

        private final Set<Transition> driven;

        private final NodeIdentity node = NodeIdentity.create();

        private final List<ClaimedJob> held = new ArrayList<>();

        private final JdbcTemplate sql;

        private final Set<String> enqueueWays;

        private final WorkflowOperations workflows;

        private final BatchOperations batches;

        Operator(ApplicationContext context, Random random, Set<Transition> driven, Set<String> enqueueWays) {
            this.sql = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            this.enqueueWays = enqueueWays;
            this.workflows = context.getBean(WorkflowOperations.class);
            this.batches = context.getBean(BatchOperations.class);
            this.template = context.getBean(QueueTemplate.class);
            this.repositories = context.getBean(Repositories.class);
            this.engine = repositories.engine();
            this.maintenance = repositories.maintenance();
            this.jobAdmin = repositories.admin();
            this.admin = context.getBean(QueueAdmin.class);
            this.transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            this.random = random;
            this.driven = driven;
        }

        void run(int steps) {
            repositories.nodes().heartbeat(node.id(), node.host(), node.pid(), Duration.ofMinutes(1), new long[0], List.of(),
                    Duration.ofSeconds(10));
            // every way of enqueueing once, then at random among the rest
            for (int way = 0; way < 5; way++) {
                enqueueAnotherWay(QUEUES.get(random.nextInt(QUEUES.size())), way, way);
            }
            Transition[] all = Transition.values();
            for (int i = 0; i < steps || !driven.containsAll(List.of(all)); i++) {
                String queue = QUEUES.get(random.nextInt(QUEUES.size()));
                // every transition first, then a random mix
                Transition transition = (i < all.length) ? all[i] : all[random.nextInt(all.length)];
                try {
                    drive(transition, queue, i);
                }
                catch (PessimisticLockingFailureException ex) {
                    // batches with overlapping dedup keys in different orders (and dead-job retries taking
                    // keys back) can deadlock; PostgreSQL aborts one statement whole, which must leave the
                    // counters as exact as a committed one does
                    continue;
                }
                driven.add(transition);
            }
            completeSome();
        }

        private void drive(Transition transition, String queue, int step) {
            switch (transition) {
                case ENQUEUE -> {
                    if (random.nextInt(5) == 0) {
                        addToBatch(queue, step);
                    }
                    else if (random.nextInt(3) == 0) {
                        enqueueAnotherWay(queue, step, random.nextInt(5));
                    }
                    else if (random.nextInt(4) == 0) {
                        template.sendBatch(LISTENED, IntStream.range(0, 1 + random.nextInt(8)).boxed().toList());
                    }
                    else if (random.nextBoolean()) {
                        template.send(queue, step, options());
                    }
                    else {
                        template.sendBatch(queue, IntStream.range(0, 1 + random.nextInt(20))
                            .mapToObj((n) -> JobRequest.of(n, options()))
                            .toList());
                    }
                }
                case SUBMIT -> submitWorkflow(queue, step);
                case UNBLOCK -> completeSome();
                case CANCEL_DEPENDANTS -> {
                    if (random.nextBoolean()) {
                        failSome(null);
                    }
                    else {
                        cancelSome(queue);
                    }
                }
                case PROMOTE -> maintenance.promoteDue(1 + random.nextInt(20));
                case CLAIM_LEASE -> held.addAll(engine.claimLeased(
                        new ClaimRequest(queue, 1 + random.nextInt(5), 3, true, node.id(), 60_000)).jobs());
                case CLAIM_DELETE -> transactions.executeWithoutResult((status) -> {
                    List<ClaimedJob> claimed = engine.claimAndDelete(
                            new ClaimRequest(queue, 1 + random.nextInt(5), 3, true, null, 0)).jobs();
                    List<ClaimedJob> members = claimed.stream().filter((job) -> job.cascades().any()).toList();
                    if (!members.isEmpty()) {
                        engine.membersSucceeded(members.stream().map((job) -> Completion.of(job, null)).toList(), true);
                    }
                });
                case COMPLETE -> completeSome();
                case FAIL -> failSome((random.nextInt(3) == 0) ? null : Duration.ofMillis(random.nextInt(3) * 10L));
                case FAIL_AFTER_ROLLBACK -> failAfterRollback(queue, 1);
                case CLAIM_RESTORE -> failAfterRollback(queue, 2 + random.nextInt(4));
                case SNOOZE -> snoozeSome();
                case SNOOZE_AFTER_ROLLBACK -> snoozeAfterRollback(queue);
                case CANCEL -> {
                    if (openBatch != null && random.nextInt(6) == 0) {
                        admin.cancelBatch(openBatch);
                        openBatch = null;
                    }
                    else {
                        cancelSome(queue);
                    }
                }
                case CANCEL_RUNNING -> cancelHeld();
                case RESCUE -> expireAndRescue(queue);
                case RELEASE -> releaseSome();
                case RETRY_DEAD -> admin.retryAllDead(queue);
                case PURGE -> admin.purgeDead(queue);
                case EXPIRE -> maintenance.expireDead(Duration.ZERO, 1 + random.nextInt(5));
            }
        }

        /** Debounced, with a dedup window, through pgqueue.send(), from a trigger, or a schedule's tick. */
        private void enqueueAnotherWay(String queue, int step, int way) {
            switch (way) {
                case 0 -> {
                    template.send(queue, step, SendOptions.builder()
                        .debounce("d" + random.nextInt(3), Duration.ofMillis(1 + random.nextInt(30)))
                        .build());
                    enqueueWays.add("debounce");
                }
                case 1 -> {
                    template.send(queue, step, SendOptions.builder()
                        .dedupKey("w" + random.nextInt(5))
                        .dedupFor(Duration.ofMillis(1 + random.nextInt(50)))
                        .build());
                    enqueueWays.add("dedup window");
                }
                case 2 -> {
                    sql.queryForObject("SELECT pgqueue.send(?, jsonb_build_object('n', ?::int), p_dedup_key => ?, "
                            + "p_delay => ? * interval '1 millisecond')", Long.class, queue, step,
                            (random.nextInt(3) == 0) ? "s" + random.nextInt(5) : null, random.nextInt(30));
                    enqueueWays.add("pgqueue.send");
                }
                case 3 -> {
                    sql.update("INSERT INTO public.placed_order (queue, n) VALUES (?, ?)", queue, step);
                    enqueueWays.add("trigger");
                }
                default -> {
                    admin.triggerSchedule("tick");
                    enqueueWays.add("schedule");
                }
            }
        }

        private SendOptions options() {
            SendOptions.Builder options = SendOptions.builder();
            if (random.nextInt(4) == 0) {
                options.dedupKey("k" + random.nextInt(10));
            }
            if (random.nextInt(4) == 0) {
                options.delay(Duration.ofMillis(random.nextInt(40)));
            }
            if (random.nextInt(5) == 0) {
                options.groupKey("g" + random.nextInt(3));
            }
            return options.build();
        }

        private List<ClaimedJob> takeSome() {
            List<ClaimedJob> some = new ArrayList<>(held.subList(0, 1 + random.nextInt(held.size())));
            held.removeAll(some);
            return some;
        }

        private void completeSome() {
            if (held.isEmpty()) {
                return;
            }
            List<ClaimedJob> done = takeSome();
            List<ClaimedJob> plain = done.stream().filter((job) -> !job.cascades().any()).toList();
            List<ClaimedJob> nodes = done.stream().filter((job) -> job.cascades().any()).toList();
            engine.complete(node.id(), plain.stream().map((job) -> Completion.of(job, null)).toList());
            engine.complete(node.id(), nodes.stream().map((job) -> Completion.of(job, "\"out-" + job.id() + "\"")).toList());
        }

        /** The batch members are added to, until it is sealed (or cancelled) and another is opened. */
        private @Nullable Long openBatch;

        /** Adds a few members (some with a delay) to the open batch, opening one first, and now and then seals it. */
        private void addToBatch(String queue, int step) {
            if (openBatch == null) {
                openBatch = batches.open(Batch.builder("b" + step).onSuccess(LISTENED).onComplete(LISTENED)
                    .onFirstDeath(LISTENED).onCannotSucceed(LISTENED).build());
            }
            batches.addAll(openBatch, queue, IntStream.range(0, 1 + random.nextInt(6))
                .mapToObj((n) -> JobRequest.of(n, options()))
                .toList());
            if (random.nextInt(3) == 0) {
                batches.seal(openBatch);
                openBatch = null;
            }
        }

        /** A small random graph over the queues, with random policies and delays. */
        private void submitWorkflow(String queue, int step) {
            Workflow.Builder workflow = Workflow.builder("w" + step)
                .defaultPolicy(DependencyPolicy.values()[random.nextInt(3)]);
            int size = 1 + random.nextInt(6);
            for (int n = 0; n < size; n++) {
                WorkflowNode node = WorkflowNode.of("n" + n, (n == 0) ? queue : QUEUES.get(random.nextInt(QUEUES.size())), n);
                if (random.nextInt(4) == 0) {
                    node = node.options(SendOptions.builder().delay(Duration.ofMillis(random.nextInt(40))).build());
                }
                for (int parent = 0; parent < n; parent++) {
                    if (random.nextInt(3) == 0) {
                        node = node.after("n" + parent, (random.nextInt(3) == 0) ? DependencyPolicy.values()[random.nextInt(3)] : null);
                    }
                }
                workflow.node(node);
            }
            workflows.submit(workflow.build());
        }

        private void releaseSome() {
            if (!held.isEmpty()) {
                engine.release(node.id(), takeSome().stream().mapToLong(ClaimedJob::id).toArray());
            }
        }

        private void failSome(Duration retryDelay) {
            if (held.isEmpty()) {
                return;
            }
            ClaimedJob job = held.remove(random.nextInt(held.size()));
            engine.fail(node.id(), new FailureUpdate(job.id(), job.attempt(), job.maxAttempts(), retryDelay, "failed"));
        }

        private void snoozeSome() {
            if (!held.isEmpty()) {
                ClaimedJob job = held.remove(random.nextInt(held.size()));
                engine.snooze(node.id(), job.id(), job.attempt(), Duration.ofMillis(random.nextInt(3) * 10L));
            }
        }

        /** A TRANSACTIONAL attempt that snoozes: its claim rolls back, then the snooze is recorded. */
        private void snoozeAfterRollback(String queue) {
            boolean inTransaction = random.nextBoolean();
            List<ClaimedJob> claimed = transactions.execute((status) -> {
                Claim claim = engine.claimAndDelete(new ClaimRequest(queue, 1, 3, true, null, 0));
                List<ClaimedJob> jobsClaimed = claim.jobs();
                if (inTransaction) {
                    jobsClaimed.forEach((job) -> engine.snoozeAfterRollback(job.id(), job.attempt(),
                            Duration.ofMillis(random.nextInt(3) * 10L), claim.undo()));
                }
                else {
                    status.setRollbackOnly();
                }
                return jobsClaimed;
            });
            if (!inTransaction) {
                for (ClaimedJob job : claimed) {
                    engine.snoozeAfterRollback(job.id(), job.attempt(), Duration.ofMillis(random.nextInt(3) * 10L),
                            ClaimUndo.NONE);
                }
            }
        }

        /** Cancels a few of the queue's newest scheduled and ready jobs (and requests it for running ones). */
        private void cancelSome(String queue) {
            JobQuery query = JobQuery.queue(queue)
                .states(JobState.WAITING, JobState.SCHEDULED, JobState.READY, JobState.RUNNING)
                .limit(1 + random.nextInt(5))
                .build();
            if (random.nextInt(8) == 0) {
                admin.cancel(query);
            }
            else if (random.nextInt(4) == 0) {
                // the listener's jobs, running ones included: their cancellation is requested
                admin.cancel(JobQuery.queue(LISTENED).limit(1 + random.nextInt(3)).build());
            }
            else {
                jobAdmin.cancel(admin.jobs(query).jobs().stream().mapToLong(JobInfo::id).toArray());
            }
        }

        /**
         * Requests the cancellation of a held job, then ends its attempt as a handler would: a failure, a
         * snooze or a release all finish it as cancelled, and so does its acknowledgement.
         */
        private void cancelHeld() {
            if (held.isEmpty()) {
                return;
            }
            ClaimedJob job = held.remove(random.nextInt(held.size()));
            jobAdmin.cancel(new long[] { job.id() });
            switch (random.nextInt(4)) {
                case 0 -> engine.fail(node.id(), new FailureUpdate(job.id(), job.attempt(), job.maxAttempts(), null, "x"));
                case 1 -> engine.snooze(node.id(), job.id(), job.attempt(), Duration.ZERO);
                case 2 -> engine.release(node.id(), new long[] { job.id() });
                default -> {
                    engine.complete(node.id(), List.of(Completion.of(job, null)));
                }
            }
        }

        /**
         * A TRANSACTIONAL claim of up to {@code limit} jobs whose first fails: its claim is taken back (the rest of
         * the batch ready again, uncounted), then the failure is recorded.
         */
        private void failAfterRollback(String queue, int limit) {
            boolean inTransaction = random.nextBoolean();
            List<ClaimedJob> claimed = transactions.execute((status) -> {
                Claim claim = engine.claimAndDelete(new ClaimRequest(queue, limit, 3, true, null, 0));
                if (inTransaction && !claim.jobs().isEmpty()) {
                    engine.failAfterRollback(failure(claim.jobs().get(0)), claim.undo());
                }
                else {
                    status.setRollbackOnly();
                }
                return claim.jobs();
            });
            if (!inTransaction && !claimed.isEmpty()) {
                engine.failAfterRollback(failure(claimed.get(0)), ClaimUndo.NONE);
            }
        }

        private FailureUpdate failure(ClaimedJob job) {
            Duration retryDelay = (job.attempt() >= job.maxAttempts()) ? null : Duration.ofMillis(random.nextInt(3) * 10L);
            return new FailureUpdate(job.id(), job.attempt(), job.maxAttempts(), retryDelay, "failed");
        }

        private void expireAndRescue(String queue) {
            List<ClaimedJob> claimed = engine.claimLeased(new ClaimRequest(queue, 2, 3, true, UUID.randomUUID(), 1)).jobs();
            if (!claimed.isEmpty()) {
                engine.rescue(Duration.ofMinutes(1));
            }
        }
    }
}
