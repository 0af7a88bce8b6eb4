package io.pgqueue.benchmark;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.benchmark.BenchServer.Database;

/**
 * Fairness inside a queue, in one run: the pickup of small keys' jobs behind one key's backlog (fair claim and
 * plain claim), completed shares under weights 3:1:1 with a saturated backlog, a fair queue's drain with one key
 * alone against a plain queue's (interleaved), 10 against 10,000 active keys (drain rate, CPU and transactions per
 * job), and per-key caps checked by the handlers themselves across four application contexts.
 */
final class FairnessScenario {

    private static final int SMALL_KEYS = 10;

    private FairnessScenario() {
    }

    /** A job of a key, with its send time for the latency of small keys. */
    record Work(String key, long sent) {
    }

    /** The listeners: 16 workers of 5 ms on the fair and plain latency queues, no-op drains, capped handlers. */
    static class Handlers {

        static final Latencies small = new Latencies(100_000);

        static final Map<String, AtomicLong> completed = new ConcurrentHashMap<>();

        static final AtomicLong drained = new AtomicLong();

        static volatile long workNanos = TimeUnit.MILLISECONDS.toNanos(5);

        static volatile javax.sql.DataSource checks;

        static final AtomicLong violations = new AtomicLong();

        static final AtomicLong checked = new AtomicLong();

        @QueueListener(queue = "fair-bench", concurrency = "16", batchSize = "16")
        void fair(Work work) {
            handle(work);
        }

        @QueueListener(queue = "plain-bench", concurrency = "16", batchSize = "16")
        void plain(Work work) {
            handle(work);
        }

        @QueueListener(queue = "fair-drain", concurrency = "${bench.concurrency:128}", batchSize = "${bench.batch:100}")
        void fairDrain(Work work) {
            drained.incrementAndGet();
        }

        @QueueListener(queue = "plain-drain", concurrency = "${bench.concurrency:128}", batchSize = "${bench.batch:100}")
        void plainDrain(Work work) {
            drained.incrementAndGet();
        }

        @QueueListener(queue = "fair-drain-tx", mode = "TRANSACTIONAL", concurrency = "4", batchSize = "10")
        void fairDrainTransactional(Work work) {
            drained.incrementAndGet();
        }

        @QueueListener(queue = "plain-drain-tx", mode = "TRANSACTIONAL", concurrency = "4", batchSize = "10")
        void plainDrainTransactional(Work work) {
            drained.incrementAndGet();
        }

        @QueueListener(queue = "fair-capped", concurrency = "8", batchSize = "8")
        void capped(Work work) throws Exception {
            try (Connection connection = checks.getConnection(); Statement statement = connection.createStatement()) {
                try (ResultSet running = statement.executeQuery("UPDATE cap_check SET running = running + 1 WHERE key = '"
                        + work.key() + "' RETURNING running")) {
                    running.next();
                    if (running.getInt(1) > 2) {
                        violations.incrementAndGet();
                    }
                }
                LockSupport.parkNanos(200_000);
                statement.execute("UPDATE cap_check SET running = running - 1 WHERE key = '" + work.key() + "'");
            }
            checked.incrementAndGet();
        }

        private static void handle(Work work) {
            if (work.sent() != 0) {
                small.record(System.nanoTime() - work.sent());
            }
            completed.computeIfAbsent(work.key(), (key) -> new AtomicLong()).incrementAndGet();
            LockSupport.parkNanos(workNanos);
        }
    }

    static List<Result> run(BenchServer server, int backlog, int seconds, int drainJobs, int capJobs)
            throws Exception {
        List<Result> results = new ArrayList<>();
        Map<String, Object> properties = Map.of("bench.fairness", "true",
                "pgqueue.queues.fair-bench.fairness.weights.a", "3",
                "pgqueue.queues.fair-drain.fairness.enabled", "true",
                "pgqueue.queues.fair-drain-tx.fairness.enabled", "true",
                "pgqueue.queues.fair-capped.fairness.max-running-per-key", "2",
                "pgqueue.listener.poll-interval", "100ms");
        try (Database database = server.createDatabase("fairness", 4);
                PgQueueApp app = PgQueueApp.start(database, 40, properties)) {
            QueueAdmin admin = app.bean(QueueAdmin.class);
            app.startListeners();
            // -Dbench.fairness.parts=pickup,drains runs some of it (comparing builds one part at a time)
            List<String> parts = List.of(System.getProperty("bench.fairness.parts", "pickup,shares,drains,caps").split(","));
            if (parts.contains("pickup")) {
                results.addAll(pickup(database, app, admin, backlog, seconds));
            }
            if (parts.contains("shares")) {
                results.addAll(shares(database, admin, seconds));
            }
            if (parts.contains("drains")) {
                results.addAll(drains(database, drainJobs));
            }
            if (parts.contains("caps")) {
                results.addAll(caps(server, database, properties, capJobs));
            }
        }
        return results;
    }

    /**
     * Small keys' first jobs behind one key's backlog: ten keys send a job every 50 ms each while the backlog
     * drains; the fair claim serves them at their next claim, the plain one after the backlog.
     */
    private static List<Result> pickup(Database database, PgQueueApp app, QueueAdmin admin, int backlog, int seconds)
            throws Exception {
        QueueTemplate template = app.template();
        List<Result> results = new ArrayList<>();
        for (String queue : List.of("fair-bench", "plain-bench")) {
            admin.pause(queue);
            preload(database, queue, backlog, 1, queue.startsWith("fair"));
            Handlers.small.clear();
            admin.resume(queue);
            long sent = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < end) {
                for (int k = 0; k < SMALL_KEYS; k++) {
                    String key = "small-" + k;
                    template.send(queue, new Work(key, System.nanoTime()), SendOptions.builder().fairnessKey(key).build());
                    sent++;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            long started = Handlers.small.size();
            admin.pause(queue);
            clear(database, queue);
            admin.resume(queue);
            String notes = backlog + " jobs of one key ahead, " + SMALL_KEYS + " small keys sending a job every 50 ms each for "
                    + seconds + " s; 16 workers, 5 ms handlers; " + started + " of " + sent + " small jobs started";
            String variant = queue.startsWith("fair") ? "fair claim" : "plain claim";
            results.add(new Result("fairness pickup", variant + ", small keys p50",
                    started == 0 ? Double.NaN : Handlers.small.percentileMillis(50), Double.NaN, "ms", false, notes));
            results.add(new Result("fairness pickup", variant + ", small keys p99",
                    started == 0 ? Double.NaN : Handlers.small.percentileMillis(99), Double.NaN, "ms", false, notes));
        }
        return results;
    }

    /** Completed shares of keys weighted 3:1:1 with a backlog none of them runs out of. */
    private static List<Result> shares(Database database, QueueAdmin admin, int seconds) throws Exception {
        admin.pause("fair-bench");
        int perKey = seconds * 16 * 200;
        for (String key : List.of("a", "b", "c")) {
            preloadKey(database, "fair-bench", key, perKey);
        }
        analyze(database);
        Handlers.completed.clear();
        admin.resume("fair-bench");
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(seconds));
        admin.pause("fair-bench");
        long a = count("a");
        long b = count("b");
        long c = count("c");
        clear(database, "fair-bench");
        admin.resume("fair-bench");
        double all = a + b + c;
        String notes = a + " / " + b + " / " + c + " jobs completed in " + seconds + " s of a saturated backlog; weights 3:1:1";
        return List.of(new Result("fairness shares", "key a (weight 3), %", 100 * a / all, 60, "%", true, notes),
                new Result("fairness shares", "key b (weight 1), %", 100 * b / all, 20, "%", true, notes),
                new Result("fairness shares", "key c (weight 1), %", 100 * c / all, 20, "%", true, notes));
    }

    private static long count(String key) {
        AtomicLong done = Handlers.completed.get(key);
        return (done != null) ? done.get() : 0;
    }

    /**
     * No-op drains, interleaved ({@link Scenarios#interleaved}: a warm-up round of each, then alternating rounds,
     * medians and each round's ratio, CPU per job of both sides): a fair queue whose jobs have one key against a
     * plain queue (LEASE and TRANSACTIONAL); the fair TRANSACTIONAL queue with its jobs over 10 keys against a plain
     * queue; the fair LEASE queue over 10,000 keys against over 10 keys. {@code -Dbench.fairness.drains=alone,
     * alone-tx,keys-tx,keys} runs some of them.
     */
    private static List<Result> drains(Database database, int jobs) throws Exception {
        Handlers.workNanos = 0;
        List<String> shapes = List.of(System.getProperty("bench.fairness.drains", "alone,alone-tx,keys-tx,keys").split(","));
        List<Result> results = new ArrayList<>();
        String notes = jobs + " no-op jobs, LEASE 128 workers, claims of 100";
        String transactionalNotes = jobs + " no-op jobs, TRANSACTIONAL 4 workers, claims of 10";
        if (shapes.contains("alone")) {
            Scenarios.Pair alone = Scenarios.interleaved(() -> drain(database, "fair-drain", jobs, 1),
                    () -> drain(database, "plain-drain", jobs, 0), jobs);
            results.addAll(pairRows(alone, "one key alone (plain queue in baseline)", "one key alone vs plain queue", notes));
        }
        if (shapes.contains("alone-tx")) {
            Scenarios.Pair aloneTransactional = Scenarios.interleaved(() -> drain(database, "fair-drain-tx", jobs, 1),
                    () -> drain(database, "plain-drain-tx", jobs, 0), jobs);
            results.addAll(pairRows(aloneTransactional, "TRANSACTIONAL, one key alone (plain queue in baseline)",
                    "TRANSACTIONAL, one key alone vs plain queue", transactionalNotes));
        }
        if (shapes.contains("keys-tx")) {
            Scenarios.Pair keysTransactional = Scenarios.interleaved(() -> drain(database, "fair-drain-tx", jobs, 10),
                    () -> drain(database, "plain-drain-tx", jobs, 0), jobs);
            results.addAll(pairRows(keysTransactional, "TRANSACTIONAL, 10 keys (plain queue in baseline)",
                    "TRANSACTIONAL, 10 keys vs plain queue", transactionalNotes));
        }
        if (shapes.contains("keys")) {
            Scenarios.Pair many = Scenarios.interleaved(() -> drain(database, "fair-drain", jobs, 10_000),
                    () -> drain(database, "fair-drain", jobs, 10), jobs);
            results.addAll(pairRows(many, "10,000 keys (10 keys in baseline)", "10,000 keys vs 10 keys", notes));
        }
        Handlers.workNanos = TimeUnit.MILLISECONDS.toNanos(5);
        return results;
    }

    /** A drain pair's throughput row and its CPU rows. */
    private static List<Result> pairRows(Scenarios.Pair pair, String variant, String cpuVariant, String notes) {
        List<Result> rows = new ArrayList<>();
        rows.add(new Result("fairness drain", variant, pair.pgqueue(), pair.baseline(), "jobs/s", true,
                notes + "; " + pair.method()));
        rows.addAll(pair.cpuRows("fairness drain", cpuVariant, "drained"));
        return rows;
    }

    /** One drain of {@code jobs} over {@code keys} keys (0: no key): jobs per second; its CPU is metered. */
    private static double drain(Database database, String queue, int jobs, int keys) throws Exception {
        Handlers.drained.set(0);
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO pgqueue.queue_state (queue, paused) VALUES ('" + queue
                    + "', true) ON CONFLICT (queue) DO UPDATE SET paused = true");
        }
        preload(database, queue, jobs, keys, keys > 0);
        MachineCpu.Spent cpu = MachineCpu.now();
        long start = System.nanoTime();
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("UPDATE pgqueue.queue_state SET paused = false WHERE queue = '" + queue + "'");
            statement.execute("SELECT pg_notify(pgqueue.notify_channel('pgqueue'), '" + queue + "')");
        }
        while (Handlers.drained.get() < jobs) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        double rate = jobs / ((System.nanoTime() - start) / 1e9);
        MachineCpu.since(cpu);
        return rate;
    }

    /** Per-key caps across four application contexts, checked by the handlers in a shared table. */
    private static List<Result> caps(BenchServer server, Database database, Map<String, Object> properties, int jobs)
            throws Exception {
        com.zaxxer.hikari.HikariDataSource checks = new com.zaxxer.hikari.HikariDataSource();
        checks.setJdbcUrl(database.url);
        checks.setUsername(database.pool.getUsername());
        checks.setPassword(database.pool.getPassword());
        checks.setMaximumPoolSize(16);
        Handlers.checks = checks;
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS cap_check (key text PRIMARY KEY, running int NOT NULL)");
            statement.execute("INSERT INTO cap_check SELECT 'k' || g, 0 FROM generate_series(0, 7) AS g ON CONFLICT DO NOTHING");
        }
        Handlers.violations.set(0);
        Handlers.checked.set(0);
        List<PgQueueApp> others = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                PgQueueApp other = PgQueueApp.start(database, 6, properties);
                other.startListeners();
                others.add(other);
            }
            preload(database, "fair-capped", jobs, 8, true);
            try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_notify(pgqueue.notify_channel('pgqueue'), 'fair-capped')");
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (Handlers.checked.get() < jobs && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
        }
        finally {
            others.forEach(PgQueueApp::close);
            checks.close();
        }
        return List.of(new Result("fairness caps", "per-key cap exceeded (times)", Handlers.violations.get(), 0, "times",
                false, Handlers.checked.get() + " of " + jobs + " jobs over 8 keys capped at 2 running, 4 application "
                        + "contexts in one JVM × 8 workers; each handler counts its key's running jobs in a shared table"));
    }

    /** Ready jobs of the queue over {@code keys} keys (0: without a key), with their counts and keys' rows. */
    private static void preload(Database database, String queue, int jobs, int keys, boolean keyed) throws Exception {
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            String key = keyed ? "'" + (queue.equals("fair-capped") ? "k" : "key-") + "' || (g % " + keys + ")" : "NULL";
            statement.execute("INSERT INTO pgqueue.job (queue, state, payload, fairness_key) SELECT '" + queue
                    + "', 'ready', jsonb_build_object('key', coalesce(" + key + ", 'none'), 'sent', 0), " + key
                    + " FROM generate_series(1, " + jobs + ") AS g");
            statement.execute("INSERT INTO pgqueue.queue_counter_delta (queue, ready, enqueued) VALUES ('" + queue + "', "
                    + jobs + ", " + jobs + ")");
            activate(statement, queue);
        }
        analyze(database);
    }

    private static void preloadKey(Database database, String queue, String key, int jobs) throws Exception {
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO pgqueue.job (queue, state, payload, fairness_key) SELECT '" + queue
                    + "', 'ready', jsonb_build_object('key', '" + key + "', 'sent', 0), '" + key
                    + "' FROM generate_series(1, " + jobs + ") AS g");
            statement.execute("INSERT INTO pgqueue.queue_counter_delta (queue, ready, enqueued) VALUES ('" + queue + "', "
                    + jobs + ", " + jobs + ")");
            activate(statement, queue);
        }
    }

    private static void activate(Statement statement, String queue) throws Exception {
        statement.execute("INSERT INTO pgqueue.fair_key (queue, key) SELECT DISTINCT queue, fairness_key FROM pgqueue.job "
                + "WHERE queue = '" + queue + "' AND fairness_key IS NOT NULL "
                + "ON CONFLICT (queue, key) DO UPDATE SET active = true, pass = 0, drained = false");
    }

    private static void analyze(Database database) throws Exception {
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("VACUUM ANALYZE pgqueue.job");
            statement.execute("VACUUM ANALYZE pgqueue.fair_key");
        }
    }

    /** Deletes what is left of the queue (its counts no longer matter to the scenario) and its keys' passes. */
    private static void clear(Database database, String queue) throws Exception {
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM pgqueue.job WHERE queue = '" + queue + "' AND state <> 'running'");
            statement.execute("UPDATE pgqueue.fair_key SET pass = 0 WHERE queue = '" + queue + "'");
        }
        analyze(database);
    }
}
