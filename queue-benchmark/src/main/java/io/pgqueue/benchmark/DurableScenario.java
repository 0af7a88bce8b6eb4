package io.pgqueue.benchmark;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.pgqueue.QueueEvents;
import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.benchmark.BenchServer.Database;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.QueueListenerContainer;

/**
 * Durable execution: a LEASE job of ten no-op steps against raw JDBC doing the same claim, ten inserts and
 * acknowledgement; a plain drain beside a million sleeping and waiting jobs against the same drain without them;
 * an emit in one application to the waiting handler running in another; and how late a sleeper starts after its
 * time.
 */
final class DurableScenario {

    private static final String QUEUE = "durable";

    private static final int STEPS = 10;

    private static final int CONCURRENCY = 16;

    private static final int BATCH = 10;

    private DurableScenario() {
    }

    static List<Result> run(Scenarios scenarios, BenchServer server, int jobs, int parked, int waits) throws Exception {
        List<Result> results = new ArrayList<>();
        Scenarios.Pair steps = Scenarios.interleaved(() -> stepsPgqueue(server, jobs), () -> stepsRaw(server, jobs), jobs);
        results.add(new Result("durable", "LEASE job of " + STEPS + " no-op steps vs raw claim + " + STEPS
                + " inserts + ack", steps.pgqueue(), steps.baseline(), "jobs/s", true, jobs + " jobs preloaded; "
                        + "pgqueue: concurrency " + CONCURRENCY + ", batch " + BATCH + ", one read of the job's steps and "
                        + "one checkpoint per step; raw: " + CONCURRENCY + " connections, lease claim of " + BATCH
                        + ", " + STEPS + " INSERTs per job, batched DELETE; " + steps.method()));
        results.addAll(steps.cpuRows("durable", "10 steps: pgqueue vs raw", "job of 10 steps"));

        Scenarios.Setting setting = new Scenarios.Setting(64, 50);
        int drained = jobs * 10;
        Scenarios.Pair beside = Scenarios.interleaved(
                () -> scenarios.drainPgqueue("LEASE", setting, drained, true, true, 0, (database) -> park(database, parked)),
                () -> scenarios.drainPgqueue("LEASE", setting, drained, true, true, 0, Scenarios.Beside.NOTHING), drained);
        results.add(new Result("durable", "plain LEASE drain beside " + parked + " parked jobs vs without",
                beside.pgqueue(), beside.baseline(), "jobs/s", true, drained + " no-op jobs; the parked jobs are "
                        + "scheduled rows with a job_wait row each (half sleeping, half awaiting an event); "
                        + beside.method()));
        results.addAll(beside.cpuRows("durable", "drain beside parked jobs vs without", "drained"));

        results.addAll(emitToResume(server, waits));
        results.addAll(sleeperLateness(server, waits));
        return results;
    }

    // ---- ten steps ---------------------------------------------------------------------------------------------

    private static double stepsPgqueue(BenchServer server, int jobs) throws Exception {
        int pool = CONCURRENCY + 6;
        try (Database database = server.createDatabase("durable", pool);
                PgQueueApp app = PgQueueApp.start(database, pool, Map.of("pgqueue.maintenance.enabled", "false"))) {
            Stepper stepper = new Stepper();
            Method handle = Stepper.class.getDeclaredMethod("handle", PgQueueApp.Tick.class, JobContext.class);
            QueueListenerContainer container = app.bean(QueueListenerContainerRegistry.class)
                .register(new ListenerEndpoint(stepper, handle, QUEUE, null, String.valueOf(CONCURRENCY), "LEASE",
                        String.valueOf(BATCH), null, null));
            QueueAdmin admin = app.bean(QueueAdmin.class);
            admin.pause(QUEUE);
            preload(app.template(), jobs);
            container.start();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            return Scenarios.rate(jobs, () -> {
                admin.resume(QUEUE);
                awaitAll(stepper.handled, jobs);
            });
        }
    }

    private static void preload(QueueTemplate template, int jobs) {
        for (int sent = 0; sent < jobs; sent += 1_000) {
            template.sendBatch(QUEUE, IntStream.range(0, Math.min(1_000, jobs - sent))
                .mapToObj((i) -> new PgQueueApp.Tick(0)).toList());
        }
    }

    /** Ten no-op steps per job. */
    static final class Stepper {

        final AtomicLong handled = new AtomicLong();

        void handle(PgQueueApp.Tick tick, JobContext job) {
            for (int step = 0; step < STEPS; step++) {
                int value = step;
                job.step("s" + step, Integer.class, () -> value);
            }
            handled.incrementAndGet();
        }
    }

    /** The same work in raw JDBC: a lease claim, ten inserts of a step row per job, a batched delete. */
    private static double stepsRaw(BenchServer server, int jobs) throws Exception {
        try (Database database = server.createDatabase("durable_raw", CONCURRENCY + 2);
                PgQueueApp app = PgQueueApp.start(database, 2, Map.of("pgqueue.maintenance.enabled", "false"))) {
            preload(app.template(), jobs);
            AtomicLong handled = new AtomicLong();
            return Scenarios.rate(jobs, () -> Scenarios.parallel(CONCURRENCY, (thread) -> {
                UUID node = UUID.randomUUID();
                try (Connection connection = database.pool.getConnection();
                        PreparedStatement claim = connection.prepareStatement(RawQueue.CLAIM_LEASE);
                        PreparedStatement insert = connection.prepareStatement("INSERT INTO pgqueue.job_step "
                                + "(job_id, name, occurrence, kind, result, result_type, started_at) "
                                + "VALUES (?, ?, 1, 'step', ?::jsonb, 'java.lang.Integer', now()) "
                                + "ON CONFLICT DO NOTHING RETURNING result::text");
                        PreparedStatement delete = connection.prepareStatement(RawQueue.DELETE_MANY)) {
                    connection.setAutoCommit(true);
                    while (true) {
                        List<Long> ids = RawQueue.claimLease(claim, node, QUEUE, BATCH);
                        if (ids.isEmpty()) {
                            return;
                        }
                        for (long id : ids) {
                            for (int step = 0; step < STEPS; step++) {
                                insert.setLong(1, id);
                                insert.setString(2, "s" + step);
                                insert.setString(3, Integer.toString(step));
                                insert.executeQuery().close();
                            }
                        }
                        RawQueue.deleteMany(connection, delete, ids);
                        handled.addAndGet(ids.size());
                    }
                }
            }));
        }
    }

    // ---- parked jobs beside a plain drain ----------------------------------------------------------------------

    /** Parks jobs in another queue: scheduled rows far ahead, each with its wait (half sleep, half event). */
    private static AutoCloseable park(Database database, int parked) throws Exception {
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("WITH parked AS (INSERT INTO pgqueue.job (queue, state, run_at, payload) "
                    + "SELECT 'parked', 'scheduled', now() + interval '30 days', jsonb_build_object('n', g) "
                    + "FROM generate_series(1, " + parked + ") AS g RETURNING id) "
                    + "INSERT INTO pgqueue.job_wait (job_id, name, occurrence, kind, event_key, until) "
                    + "SELECT id, CASE WHEN id % 2 = 0 THEN 'pgqueue.sleep' ELSE 'pgqueue.event:k' || id END, 1, "
                    + "CASE WHEN id % 2 = 0 THEN 'sleep' ELSE 'event' END, CASE WHEN id % 2 = 0 THEN NULL ELSE 'k' || id END, "
                    + "now() + interval '30 days' FROM parked");
            statement.execute("INSERT INTO pgqueue.queue_counter_delta (queue, scheduled, enqueued) VALUES ('parked', "
                    + parked + ", " + parked + ")");
            statement.execute("VACUUM ANALYZE pgqueue.job");
            statement.execute("VACUUM ANALYZE pgqueue.job_wait");
            Scenarios.checkpoint(statement);
        }
        return () -> {
        };
    }

    // ---- emit to resume across applications --------------------------------------------------------------------

    private static List<Result> emitToResume(BenchServer server, int waits) throws Exception {
        try (Database database = server.createDatabase("durable_events", 12);
                PgQueueApp consumer = PgQueueApp.start(database, 8, Map.of("pgqueue.listener.poll-interval", "30s"));
                PgQueueApp emitter = PgQueueApp.start(database, 4, Map.of("pgqueue.maintenance.enabled", "false"))) {
            Awaiter awaiter = new Awaiter();
            Method handle = Awaiter.class.getDeclaredMethod("handle", String.class, JobContext.class);
            QueueListenerContainer container = consumer.bean(QueueListenerContainerRegistry.class)
                .register(new ListenerEndpoint(awaiter, handle, "awaiting", null, "8", "LEASE", "10", null, null));
            container.start();
            QueueTemplate template = consumer.template();
            for (int i = 0; i < waits; i++) {
                template.send("awaiting", "k" + i);
            }
            awaitAll(awaiter.parked, waits);
            awaitScheduled(database, waits);
            QueueEvents events = emitter.bean(QueueEvents.class);
            Latencies latencies = new Latencies(waits);
            for (int i = 0; i < waits; i++) {
                String key = "k" + i;
                long start = System.nanoTime();
                awaiter.emittedAt.put(key, start);
                events.emit(key, "go");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!awaiter.resumedAt.containsKey(key)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the job awaiting " + key + " did not resume");
                    }
                    Thread.onSpinWait();
                }
                latencies.record(awaiter.resumedAt.get(key) - start);
            }
            String notes = waits + " parked jobs, each emitted to in turn by another application (emit returned, "
                    + "committed, NOTIFY) until its handler ran again; the consumer polls every 30 s";
            return List.of(
                    new Result("durable", "emit -> resumed handler in another application, p50",
                            latencies.percentileMillis(50), Double.NaN, "ms", false, notes),
                    new Result("durable", "emit -> resumed handler in another application, p99",
                            latencies.percentileMillis(99), Double.NaN, "ms", false, notes + "; target 20 ms"));
        }
    }

    private static void awaitScheduled(Database database, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement();
                    var rows = statement.executeQuery("SELECT count(*) FROM pgqueue.job WHERE state = 'scheduled'")) {
                rows.next();
                if (rows.getLong(1) >= count) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("jobs did not park");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** Awaits an event keyed by its payload; records when it parked and when it resumed. */
    static final class Awaiter {

        final AtomicLong parked = new AtomicLong();

        final Map<String, Long> emittedAt = new ConcurrentHashMap<>();

        final Map<String, Long> resumedAt = new ConcurrentHashMap<>();

        void handle(String key, JobContext job) {
            long started = System.nanoTime();
            try {
                job.awaitEvent(key, Duration.ofHours(1));
            }
            catch (RuntimeException parkedNow) {
                parked.incrementAndGet();
                throw parkedNow;
            }
            resumedAt.put(key, started);
        }
    }

    // ---- sleepers' lateness ------------------------------------------------------------------------------------

    private static List<Result> sleeperLateness(BenchServer server, int sleepers) throws Exception {
        try (Database database = server.createDatabase("durable_sleep", 12);
                PgQueueApp app = PgQueueApp.start(database, 10, Map.of())) {
            Sleeper sleeper = new Sleeper();
            Method handle = Sleeper.class.getDeclaredMethod("handle", Long.class, JobContext.class);
            QueueListenerContainer container = app.bean(QueueListenerContainerRegistry.class)
                .register(new ListenerEndpoint(sleeper, handle, "sleepers", null, "8", "LEASE", "10", null, null));
            container.start();
            long base = System.currentTimeMillis() + 2_000;
            for (int i = 0; i < sleepers; i++) {
                // due times spread over 5 s
                app.template().send("sleepers", base + (i * 5_000L / sleepers));
            }
            awaitAll(sleeper.resumed, sleepers);
            String notes = sleepers + " jobs sleeping until times spread over 5 s; how long after its time each "
                    + "ran again (maintenance interval 1 s, the promotion's bound)";
            return List.of(
                    new Result("durable", "sleeper starts after its time, p50", sleeper.lateness.percentileMillis(50),
                            Double.NaN, "ms", false, notes),
                    new Result("durable", "sleeper starts after its time, p99", sleeper.lateness.percentileMillis(99),
                            Double.NaN, "ms", false, notes));
        }
    }

    /** Sleeps until the time in its payload (epoch millis), then records how late it ran. */
    static final class Sleeper {

        final AtomicLong resumed = new AtomicLong();

        final Latencies lateness = new Latencies(1_000_000);

        void handle(Long until, JobContext job) {
            job.sleepUntil(Instant.ofEpochMilli(until));
            lateness.record(Math.max(0, (System.currentTimeMillis() - until) * 1_000_000L));
            resumed.incrementAndGet();
        }
    }

    /** Waits for the count, failing the scenario when it is not reached in five minutes. */
    private static void awaitAll(AtomicLong counter, long target) {
        Scenarios.awaitHandled(counter::get, target, 300);
        if (counter.get() < target) {
            throw new IllegalStateException("only " + counter.get() + " of " + target);
        }
    }
}
