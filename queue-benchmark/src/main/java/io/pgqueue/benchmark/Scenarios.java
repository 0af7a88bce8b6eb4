package io.pgqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.benchmark.BenchServer.Database;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The benchmark scenarios. Every pgqueue number is measured next to its raw-SQL baseline on the same server
 * in the same run, with the same batch size and connection count.
 */
final class Scenarios {

    private static final String QUEUE = "bench";

    private final BenchServer server;

    private final Sizes sizes;

    /** Where evidence a scenario leaves (thread dumps) is written, beside the results. */
    private final java.nio.file.Path out;

    Scenarios(BenchServer server, Sizes sizes, java.nio.file.Path out) {
        this.server = server;
        this.sizes = sizes;
        this.out = out;
    }

    /**
     * How much work each scenario does.
     *
     * @param sends sends one per transaction, in total over all threads
     * @param batchRows rows sent with sendBatch per batch size
     * @param drainJobs jobs preloaded for a drain
     * @param steady duration of the steady-state run
     * @param steadyRate jobs per second offered in steady state
     * @param pickup duration of the low-load pickup run
     * @param backlogLarge ready (and as many scheduled) jobs in the large backlog
     * @param backlogWork jobs processed to time a backlog
     * @param memoryJobs jobs drained under a 256 MB heap
     */
    record Sizes(int sends, int batchRows, int drainJobs, Duration steady, int steadyRate, Duration pickup,
            int backlogLarge, int backlogWork, int memoryJobs) {

        static final Sizes FULL = new Sizes(20_000, 200_000, 200_000, Duration.ofSeconds(60), 2_000,
                Duration.ofSeconds(20), 1_000_000, 10_000, 1_000_000);

        static final Sizes QUICK = new Sizes(2_000, 20_000, 20_000, Duration.ofSeconds(5), 500, Duration.ofSeconds(3),
                50_000, 5_000, 50_000);

        /** Sizes of {@code --smoke}: enough for each scenario to run through, too small to mean anything. */
        static final Sizes SMOKE = new Sizes(400, 4_000, 4_000, Duration.ofSeconds(2), 200, Duration.ofSeconds(1),
                10_000, 500, 10_000);
    }

    // ---------------------------------------------------------------- enqueue

    List<Result> enqueue() throws Exception {
        List<Result> results = new ArrayList<>();
        int threads = 8;
        try (Database database = server.createDatabase("enqueue", threads); PgQueueApp app = PgQueueApp.start(database,
                threads, Map.of("pgqueue.maintenance.enabled", "false"))) {
            QueueTemplate template = app.template();
            List<Double> sendCpu = new ArrayList<>();
            List<Double> guardedCpu = new ArrayList<>();
            String single = "send, 1 per transaction, " + threads + " threads";
            List<MachineCpu.Spent> sendMachine = new ArrayList<>();
            List<MachineCpu.Spent> guardedMachine = new ArrayList<>();
            Callable<Double> send = MachineCpu.metered(ClientCpu.metered(sends(database, template, threads,
                    sizes.sends()), sizes.sends(), sendCpu), sizes.sends(), sendMachine);
            results.addAll(againstRaw(single, "single-row INSERT", send,
                    () -> rawInserts(database, threads, sizes.sends(), 1, RawQueue.INSERT_ONE),
                    MachineCpu.metered(ClientCpu.metered(() -> rawInserts(database, threads, sizes.sends(), 1,
                            RawQueue.INSERT_ONE_GUARDED), sizes.sends(), guardedCpu), sizes.sends(), guardedMachine),
                    0));
            results.add(new Result("enqueue", single + ": client CPU per job, pgqueue vs raw + send guarantees",
                    median(sendCpu), median(guardedCpu), "µs", false, "CPU time of the sending threads per job, "
                            + "median of every round above: what the client spends beside the database"));
            results.addAll(MachineCpu.rows("enqueue", single + ": pgqueue vs raw + send guarantees", sendMachine,
                    guardedMachine, "were sent"));
            for (int batch : new int[] { 100, 1000 }) {
                int batches = sizes.batchRows() / batch;
                int batchThreads = 4;
                Callable<Double> sendBatch = batchSends(database, template, batchThreads, batches, batch);
                results.addAll(againstRaw("sendBatch of " + batch + ", " + batchThreads + " threads",
                        "multi-row INSERT ... VALUES of " + batch, sendBatch,
                        () -> rawInserts(database, batchThreads, batches * batch, batch, RawQueue.insertMany(batch)),
                        () -> rawInserts(database, batchThreads, batches * batch, batch,
                                RawQueue.insertManyGuarded(batch)), (long) batches * batch));
            }
        }
        return results;
    }

    /** One round of single sends ({@code jobs} over {@code threads}, one per transaction); returns jobs/s. */
    static Callable<Double> sends(Database database, QueueTemplate template, int threads, int jobs) {
        int perThread = jobs / threads;
        return () -> {
            truncate(database);
            return rate((long) perThread * threads, () -> parallel(threads, (t) -> {
                for (int i = 0; i < perThread; i++) {
                    template.send(QUEUE, Map.of("n", i));
                }
            }));
        };
    }

    /** One round of {@code batches} batch sends of {@code batch} jobs over {@code threads}; returns jobs/s. */
    static Callable<Double> batchSends(Database database, QueueTemplate template, int threads, int batches, int batch) {
        List<Map<String, Integer>> payloads = IntStream.range(0, batch).mapToObj((i) -> Map.of("n", i)).toList();
        return () -> {
            truncate(database);
            return rate((long) batches * batch, () -> parallel(threads, (t) -> {
                for (int b = t; b < batches; b += threads) {
                    template.sendBatch(QUEUE, payloads);
                }
            }));
        };
    }

    /**
     * An enqueue shape against its raw baseline, then priced: the raw statement with only what pgqueue's send
     * guarantees (database clock, dedup arbiter, returned ids, counter delta) against the bare one, and pgqueue
     * against that guarded statement.
     */
    private static List<Result> againstRaw(String variant, String raw, Callable<Double> pgqueue, Callable<Double> bare,
            Callable<Double> guarded, long meteredJobs) throws Exception {
        Pair against = interleaved(pgqueue, bare);
        Pair guarantees = interleaved(guarded, bare);
        Pair beyond = interleaved(pgqueue, guarded, meteredJobs);
        List<Result> rows = new ArrayList<>(List.of(
                new Result("enqueue", variant, against.pgqueue(), against.baseline(), "jobs/s", true,
                        "raw: " + raw + "; " + against.method()),
                new Result("enqueue", variant + ": raw + send guarantees vs raw", guarantees.pgqueue(),
                        guarantees.baseline(), "jobs/s", true, "the price of the guarantees in raw SQL alone "
                                + "(clock, dedup arbiter, RETURNING id, counter delta); " + guarantees.method()),
                new Result("enqueue", variant + ": pgqueue vs raw + send guarantees", beyond.pgqueue(),
                        beyond.baseline(), "jobs/s", true, "what pgqueue costs beyond those guarantees; " + beyond.method())));
        rows.addAll(beyond.cpuRows("enqueue", variant + ": pgqueue vs raw + send guarantees", "were sent"));
        return rows;
    }

    /**
     * Inserts {@code jobs} jobs with a raw statement of {@code rows} (queue, payload) parameter pairs, on
     * {@code threads} connections with one prepared statement each; returns jobs per second.
     */
    private double rawInserts(Database database, int threads, int jobs, int rows, String sql) throws Exception {
        truncate(database);
        int statements = jobs / rows;
        return rate(jobs, () -> parallel(threads, (t) -> {
            try (Connection connection = database.pool.getConnection();
                    PreparedStatement insert = connection.prepareStatement(sql)) {
                for (int s = t; s < statements; s += threads) {
                    for (int i = 0; i < rows; i++) {
                        insert.setString(2 * i + 1, QUEUE);
                        insert.setString(2 * i + 2, "{\"n\": " + i + "}");
                    }
                    if (insert.execute()) {
                        try (ResultSet ids = insert.getResultSet()) {
                            while (ids.next()) {
                                ids.getLong(1);
                            }
                        }
                    }
                }
            }
        }));
    }

    // ---------------------------------------------------------------- drain

    /** Drain settings: concurrency (threads/connections), batch size and a LEASE container's prefetch. */
    record Setting(int concurrency, int batch, int prefetch) {

        Setting(int concurrency, int batch) {
            this(concurrency, batch, 0);
        }

        @Override
        public String toString() {
            return "concurrency " + concurrency + ", batch " + batch + ((prefetch > 0) ? ", prefetch " + prefetch : "");
        }
    }

    /**
     * TRANSACTIONAL: concurrency = transactions (connections) claiming a batch each; the baseline runs as
     * many threads with the same batch.
     */
    static final List<Setting> TRANSACTIONAL_SETTINGS = List.of(new Setting(4, 10), new Setting(8, 50),
            new Setting(16, 100));

    /**
     * LEASE: concurrency = worker threads fed by one poller connection, which claims at most the free worker
     * slots (up to a batch) plus the prefetch; acknowledgements go through one more connection. The baseline
     * runs two connections, each claiming a batch with the lease UPDATE and deleting it with one batched DELETE.
     */
    static final List<Setting> LEASE_SETTINGS = List.of(new Setting(16, 10), new Setting(64, 50),
            new Setting(128, 100), new Setting(64, 50, 100), new Setting(128, 100, 100));

    static final int LEASE_BASELINE_CONNECTIONS = 2;

    /** The raw TRANSACTIONAL consumer with pgqueue's claim guarantees added ({@link RawQueue#CLAIM_DELETE_GUARDED}). */
    static final String TRANSACTIONAL_GUARDED = "TRANSACTIONAL with savepoint and counter delta";

    /**
     * The raw LEASE consumer with pgqueue's guarantees added: counter deltas and the acknowledgement's ownership
     * check ({@link RawQueue#CLAIM_LEASE_GUARDED}, {@link RawQueue#DELETE_MANY_GUARDED}).
     */
    static final String LEASE_GUARDED = "LEASE with counter deltas and ownership check";

    List<Result> drain() throws Exception {
        List<Result> results = new ArrayList<>();
        for (String mode : List.of("LEASE", "TRANSACTIONAL")) {
            Result best = null;
            Setting bestSetting = null;
            boolean lease = mode.equals("LEASE");
            List<Setting> settings = BenchSettings.drainSettings(mode, lease ? LEASE_SETTINGS : TRANSACTIONAL_SETTINGS);
            if (settings.isEmpty()) {
                continue;
            }
            for (Setting setting : settings) {
                Setting rawSetting = lease ? new Setting(LEASE_BASELINE_CONNECTIONS, setting.batch()) : setting;
                Pair drain = interleaved(() -> drainPgqueue(mode, setting, sizes.drainJobs(), true, true),
                        () -> drainRaw(mode, rawSetting, sizes.drainJobs()), sizes.drainJobs());
                Result result = new Result("drain " + mode, setting.toString(), drain.pgqueue(), drain.baseline(),
                        "jobs/s", true, sizes.drainJobs() + " no-op jobs preloaded" + (lease ? "; raw: "
                                + LEASE_BASELINE_CONNECTIONS + " connections, lease UPDATE + batched DELETE, batch "
                                + setting.batch() : "") + "; " + drain.method());
                results.add(result);
                results.addAll(drain.cpuRows("drain " + mode, setting + ": pgqueue vs raw", "drained"));
                if (best == null || result.pgqueue() > best.pgqueue()) {
                    best = result;
                    bestSetting = setting;
                }
            }
            results.add(new Result("drain " + mode, "best: " + best.variant(), best.pgqueue(), best.baseline(), "jobs/s",
                    true, "best pgqueue setting, baseline at the same setting"));
            results.addAll(guarantees(mode, bestSetting));
        }
        return results;
    }

    /**
     * What a drain's guarantees cost on their own: the raw consumer with only what pgqueue adds to its
     * statements (TRANSACTIONAL: the claim's savepoint and counter delta; LEASE: counter deltas and the
     * acknowledgement's ownership check), against the bare raw consumer (the price of the guarantees) and
     * against pgqueue (what pgqueue costs beyond them), interleaved at the best setting.
     */
    private List<Result> guarantees(String mode, Setting setting) throws Exception {
        int jobs = sizes.drainJobs();
        boolean lease = mode.equals("LEASE");
        String guarded = lease ? LEASE_GUARDED : TRANSACTIONAL_GUARDED;
        String added = lease ? "counter deltas + ownership check" : "savepoint + counter delta";
        Setting raw = lease ? new Setting(LEASE_BASELINE_CONNECTIONS, setting.batch()) : setting;
        Pair guarantees = interleaved(() -> drainRaw(guarded, raw, jobs), () -> drainRaw(mode, raw, jobs));
        List<MachineCpu.Spent> ours = new ArrayList<>();
        List<MachineCpu.Spent> theirs = new ArrayList<>();
        Pair beyond = interleaved(MachineCpu.metered(() -> drainPgqueue(mode, setting, jobs, true, true), jobs, ours),
                MachineCpu.metered(() -> drainRaw(guarded, raw, jobs), jobs, theirs));
        // the warm-up round of each is not counted
        ours.remove(0);
        theirs.remove(0);
        List<Result> rows = new ArrayList<>(List.of(
                new Result("drain " + mode, "raw + " + added + " vs raw, " + raw, guarantees.pgqueue(),
                        guarantees.baseline(), "jobs/s", true,
                        "the price of pgqueue's guarantees in raw SQL alone; " + guarantees.method()),
                new Result("drain " + mode, "pgqueue (" + setting + ") vs raw + " + added, beyond.pgqueue(),
                        beyond.baseline(), "jobs/s", true, "what pgqueue costs beyond those guarantees; " + beyond.method())));
        rows.addAll(MachineCpu.rows("drain " + mode, "pgqueue vs raw + " + added, ours, theirs, "drained"));
        return rows;
    }

    /** Drains preloaded jobs with pgqueue; returns jobs per second. */
    double drainPgqueue(String mode, Setting setting, int jobs, boolean counters, boolean metrics) throws Exception {
        return drainPgqueue(mode, setting, jobs, counters, metrics, 0);
    }

    /** As above, the jobs' payloads padded to about {@code payloadBytes}. */
    double drainPgqueue(String mode, Setting setting, int jobs, boolean counters, boolean metrics, int payloadBytes)
            throws Exception {
        return drainPgqueue(mode, setting, jobs, counters, metrics, payloadBytes, Beside.NOTHING);
    }

    /**
     * What else runs in the drained database while the clock runs: opened once the jobs are loaded, closed once
     * they are drained (the long-transaction scenario holds a snapshot open).
     */
    @FunctionalInterface
    interface Beside {

        Beside NOTHING = (database) -> () -> {
        };

        AutoCloseable open(Database database) throws Exception;
    }

    /** As above, with something else running in the database while the jobs drain. */
    double drainPgqueue(String mode, Setting setting, int jobs, boolean counters, boolean metrics, int payloadBytes,
            Beside beside) throws Exception {
        // LEASE: two pollers under a backlog, acknowledgements, LISTEN, heartbeat, maintenance, scheduler
        int pool = mode.equals("LEASE") ? 8 : setting.concurrency() + 4;
        try (Database database = server.createDatabase("drain", pool);
                PgQueueApp app = PgQueueApp.start(database, pool, drainProperties(mode, setting, counters, metrics))) {
            preload(database, jobs, 0, payloadBytes);
            PgQueueApp.NoopListener listener = app.listener();
            // the clock runs from the moment running listeners may claim, as in a deployed application (the
            // raw consumers, too, start with their connections open): paused, started, settled, then resumed
            QueueAdmin admin = app.bean(QueueAdmin.class);
            admin.pause(QUEUE);
            app.startListeners();
            LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
            try (AutoCloseable running = beside.open(database)) {
                return rate(jobs, () -> {
                    admin.resume(QUEUE);
                    awaitDrained(database, listener.handled::get, jobs);
                });
            }
        }
    }

    static Map<String, Object> drainProperties(String mode, Setting setting, boolean counters, boolean metrics) {
        return Map.of("bench.listen", "true", "bench.queue", QUEUE, "bench.mode", mode, "bench.concurrency",
                String.valueOf(setting.concurrency()), "bench.batch", String.valueOf(setting.batch()),
                "pgqueue.counters.enabled", String.valueOf(counters), "pgqueue.metrics.enabled",
                String.valueOf(metrics), "pgqueue.listener.prefetch", String.valueOf(setting.prefetch()));
    }

    /** Drains preloaded jobs with the raw statements of the same shape; returns jobs per second. */
    double drainRaw(String mode, Setting setting, int jobs) throws Exception {
        return drainRaw(mode, setting, jobs, 0);
    }

    /** As above, the jobs' payloads padded to about {@code payloadBytes}. */
    double drainRaw(String mode, Setting setting, int jobs, int payloadBytes) throws Exception {
        return drainRaw(mode, setting, jobs, payloadBytes, Beside.NOTHING);
    }

    /** As above, with something else running in the database while the jobs drain. */
    double drainRaw(String mode, Setting setting, int jobs, int payloadBytes, Beside beside) throws Exception {
        try (Database database = server.createDatabase("drainraw", setting.concurrency())) {
            try (PgQueueApp migrate = PgQueueApp.start(database, 2, Map.of("pgqueue.maintenance.enabled", "false"))) {
                // only to create the schema
            }
            preload(database, jobs, 0, payloadBytes);
            AtomicLong handled = new AtomicLong();
            try (AutoCloseable running = beside.open(database)) {
                return rate(jobs, () -> parallel(setting.concurrency(),
                        (t) -> rawConsumer(database, mode, setting.batch(), handled, () -> handled.get() >= jobs)));
            }
        }
    }

    /** One raw consumer thread: claims batches until told to stop or the queue is empty. */
    private static void rawConsumer(Database database, String mode, int batch, AtomicLong handled,
            java.util.function.BooleanSupplier stop) throws SQLException {
        UUID node = UUID.randomUUID();
        try (Connection connection = database.pool.getConnection()) {
            boolean transactional = mode.startsWith("TRANSACTIONAL");
            boolean guarded = mode.equals(TRANSACTIONAL_GUARDED);
            boolean leaseGuarded = mode.equals(LEASE_GUARDED);
            try (PreparedStatement claim = connection.prepareStatement(guarded ? RawQueue.CLAIM_DELETE_GUARDED
                    : transactional ? RawQueue.CLAIM_DELETE : leaseGuarded ? RawQueue.CLAIM_LEASE_GUARDED
                    : RawQueue.CLAIM_LEASE);
                    PreparedStatement delete = connection.prepareStatement(
                            leaseGuarded ? RawQueue.DELETE_MANY_GUARDED : RawQueue.DELETE_MANY)) {
                connection.setAutoCommit(!transactional);
                while (!stop.getAsBoolean()) {
                    int claimed;
                    if (leaseGuarded) {
                        claimed = RawQueue.claimAndDeleteLeaseGuarded(connection, claim, delete, node, QUEUE, batch);
                    }
                    else {
                        List<Long> ids = guarded ? RawQueue.claimDeleteGuarded(claim, QUEUE, batch)
                                : transactional ? RawQueue.claimDelete(claim, QUEUE, batch)
                                : RawQueue.claimLease(claim, node, QUEUE, batch);
                        if (transactional) {
                            connection.commit();
                        }
                        else if (!ids.isEmpty()) {
                            RawQueue.deleteMany(connection, delete, ids);
                        }
                        claimed = ids.size();
                    }
                    handled.addAndGet(claimed);
                    if (claimed == 0) {
                        return;
                    }
                }
            }
            finally {
                connection.setAutoCommit(true);
            }
        }
    }

    // ---------------------------------------------------------------- steady state

    /**
     * What a steady-state run of pgqueue measured.
     *
     * @param latencies enqueue-to-start of every job handled
     * @param done jobs handled by the end of sending
     * @param sent jobs sent
     * @param maxBacklog the largest backlog sampled
     * @param dump threads at 2 s of backlog, or null
     */
    record SteadyRun(Latencies latencies, long done, long sent, long maxBacklog, java.nio.file.@Nullable Path dump) {
    }

    static final Setting STEADY_SETTING = new Setting(8, 10);

    static final int STEADY_PRODUCERS = 4;

    /** pgqueue at the steady rate for the steady duration, with something else running in the database. */
    SteadyRun steadyPgqueue(Duration duration, Beside beside) throws Exception {
        Setting setting = STEADY_SETTING;
        int producers = STEADY_PRODUCERS;
        try (Database database = server.createDatabase("steady", setting.concurrency() + producers + 4);
                PgQueueApp app = PgQueueApp.start(database, setting.concurrency() + producers + 4,
                        Map.of("bench.timed", "true", "bench.timed-queue", QUEUE, "bench.concurrency",
                                String.valueOf(setting.concurrency()), "bench.batch", String.valueOf(setting.batch())));
                AutoCloseable running = beside.open(database)) {
            app.startListeners();
            PgQueueApp.TimedListener listener = app.bean(PgQueueApp.TimedListener.class);
            QueueTemplate template = app.template();
            AtomicLong sent = new AtomicLong();
            // a consumer keeping up holds a backlog of a few batches; two seconds of work means it fell behind
            try (BacklogWatch watch = BacklogWatch.start(sent::get, listener.handled::get, 2L * sizes.steadyRate(),
                    out, () -> sessions(database))) {
                paced(producers, sizes.steadyRate(), duration, () -> {
                    template.send(QUEUE, new PgQueueApp.Tick(System.nanoTime()));
                    sent.incrementAndGet();
                });
                return new SteadyRun(listener.latencies, listener.handled.get(), sent.get(), watch.maxBacklog(),
                        watch.dump());
            }
        }
    }

    List<Result> steady() throws Exception {
        Setting setting = STEADY_SETTING;
        int producers = STEADY_PRODUCERS;
        List<Result> results = new ArrayList<>();
        SteadyRun run = steadyPgqueue(sizes.steady(), Beside.NOTHING);
        Latencies ours = run.latencies();
        long oursDone = run.done();
        long oursSent = run.sent();
        long maxBacklog = run.maxBacklog();
        java.nio.file.Path dump = run.dump();
        Latencies raw = new Latencies(2_000_000);
        AtomicLong rawDone = new AtomicLong();
        try (Database database = server.createDatabase("steadyraw", setting.concurrency() + producers)) {
            try (PgQueueApp migrate = PgQueueApp.start(database, 2, Map.of("pgqueue.maintenance.enabled", "false"))) {
                // only to create the schema
            }
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService consumers = Executors.newFixedThreadPool(setting.concurrency());
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < setting.concurrency(); c++) {
                running.add(consumers.submit(() -> timedRawConsumer(database, setting.batch(), raw, rawDone, stop)));
            }
            ThreadLocal<Connection> connections = new ThreadLocal<>();
            List<Connection> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
            paced(producers, sizes.steadyRate(), sizes.steady(), () -> {
                Connection connection = connections.get();
                if (connection == null) {
                    connection = database.pool.getConnection();
                    connections.set(connection);
                    opened.add(connection);
                }
                try (PreparedStatement insert = connection.prepareStatement(RawQueue.INSERT_ONE)) {
                    insert.setString(1, QUEUE);
                    insert.setString(2, "{\"sentNanos\": " + System.nanoTime() + "}");
                    insert.executeUpdate();
                }
            });
            stop.set(true);
            for (Future<?> consumer : running) {
                consumer.get(30, TimeUnit.SECONDS);
            }
            consumers.shutdown();
            for (Connection connection : opened) {
                connection.close();
            }
        }
        double seconds = sizes.steady().toNanos() / 1e9;
        String notes = sizes.steadyRate() + " jobs/s offered by " + producers + " producers for " + (long) seconds
                + " s; consumers: " + setting + "; raw consumers poll every 5 ms when idle";
        results.add(new Result("steady state", "throughput", oursDone / seconds, rawDone.get() / seconds, "jobs/s",
                true, notes));
        for (double p : new double[] { 50, 95, 99 }) {
            results.add(new Result("steady state", "enqueue-to-start p" + (int) p, ours.percentileMillis(p),
                    raw.percentileMillis(p), "ms", false, notes));
        }
        results.add(new Result("steady state", "largest backlog (sent, not yet handled)", maxBacklog, Double.NaN,
                "jobs", false, oursSent + " sent, " + oursDone + " handled by the end of sending; sampled every 100 ms; "
                        + ((dump == null) ? "never above 2 s of work" : "threads at 2 s of backlog: " + dump)));
        return results;
    }

    private static Void timedRawConsumer(Database database, int batch, Latencies latencies, AtomicLong done,
            AtomicBoolean stop) throws Exception {
        try (Connection connection = database.pool.getConnection();
                PreparedStatement claim = connection.prepareStatement(RawQueue.CLAIM_DELETE)) {
            connection.setAutoCommit(false);
            while (!stop.get()) {
                claim.setString(1, QUEUE);
                claim.setInt(2, batch);
                int n = 0;
                try (ResultSet rows = claim.executeQuery()) {
                    while (rows.next()) {
                        long sent = sentNanos(rows.getString(2));
                        latencies.record(System.nanoTime() - sent);
                        n++;
                    }
                }
                connection.commit();
                done.addAndGet(n);
                if (n == 0) {
                    LockSupport.parkNanos(5_000_000);
                }
            }
            connection.setAutoCommit(true);
        }
        return null;
    }

    // ---------------------------------------------------------------- pickup latency

    /**
     * Who sends and how the listener learns of the job. A separate publisher application stands for another
     * node: only NOTIFY or polling can reach the listener then.
     */
    enum PickupVariant {

        NOTIFY("NOTIFY from another application (poll interval 10 s)", true, false, "10s"),
        IN_PROCESS("same application, in-process wake-up (NOTIFY off, poll interval 10 s)", false, true, "10s"),
        POLLING("polling only: another application, NOTIFY off (poll interval 1 s)", false, false, "1s");

        final String description;

        final boolean notify;

        final boolean sameApplication;

        final String pollInterval;

        PickupVariant(String description, boolean notify, boolean sameApplication, String pollInterval) {
            this.description = description;
            this.notify = notify;
            this.sameApplication = sameApplication;
            this.pollInterval = pollInterval;
        }
    }

    List<Result> pickup() throws Exception {
        List<Result> results = new ArrayList<>();
        Latencies rawLatencies = rawPickup();
        for (PickupVariant variant : PickupVariant.values()) {
            Latencies latencies = pickupPgqueue(variant);
            for (double p : new double[] { 50, 99 }) {
                results.add(new Result("pickup, 1 job / 50 ms", variant.description + " p" + (int) p,
                        latencies.percentileMillis(p), rawLatencies.percentileMillis(p), "ms", false,
                        "raw: LISTEN on one connection, claim on NOTIFY; both after " + pickupWarmUpJobs()
                                + " jobs sent in a burst, not measured"));
            }
        }
        return results;
    }

    /** Sends one job every 50 ms for the pickup duration and returns the send-to-handler-start latencies. */
    Latencies pickupPgqueue(PickupVariant variant) throws Exception {
        Map<String, Object> notify = Map.of("pgqueue.listener.notify", String.valueOf(variant.notify));
        Map<String, Object> listening = new HashMap<>(notify);
        listening.putAll(Map.of("bench.timed", "true", "bench.timed-queue", QUEUE, "pgqueue.listener.poll-interval",
                variant.pollInterval));
        try (Database database = server.createDatabase("pickup", 8);
                PgQueueApp app = PgQueueApp.start(database, 6, listening);
                PgQueueApp publisher = variant.sameApplication ? null : PgQueueApp.start(database, 2, notify)) {
            app.startListeners();
            PgQueueApp.TimedListener listener = app.bean(PgQueueApp.TimedListener.class);
            QueueTemplate template = (publisher != null) ? publisher.template() : app.template();
            int warmUp = pickupWarmUpJobs();
            for (int i = 0; i < warmUp; i++) {
                template.send(QUEUE, new PgQueueApp.Tick(System.nanoTime()));
            }
            awaitHandled(listener.handled::get, warmUp, 60);
            listener.latencies.clear();
            int jobs = (int) (sizes.pickup().toMillis() / 50);
            for (int i = 0; i < jobs; i++) {
                template.send(QUEUE, new PgQueueApp.Tick(System.nanoTime()));
                LockSupport.parkNanos(50_000_000);
            }
            awaitHandled(listener.handled::get, warmUp + jobs, 5);
            return listener.latencies;
        }
    }

    /**
     * Jobs sent in a burst before a pickup is measured, by pgqueue and by the raw baseline alike, and not counted:
     * the measured jobs then find the code compiled, as in an application that has been running a while (at one
     * job per 50 ms, a cold JVM interprets much of the path for the whole measurement).
     */
    private int pickupWarmUpJobs() {
        return Math.min(2_000, sizes.sends());
    }

    /** Waits until {@code handled} reaches {@code count}, for at most {@code seconds}. */
    static void awaitHandled(LongSupplier handled, long count, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (handled.getAsLong() < count && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
        }
    }

    private Latencies rawPickup() throws Exception {
        Latencies latencies = new Latencies(100_000);
        AtomicLong consumed = new AtomicLong();
        try (Database database = server.createDatabase("pickupraw", 3)) {
            try (PgQueueApp migrate = PgQueueApp.start(database, 2, Map.of("pgqueue.maintenance.enabled", "false"))) {
                // only to create the schema
            }
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService consumer = Executors.newSingleThreadExecutor();
            Future<?> listening = consumer.submit(() -> {
                try (Connection connection = database.pool.getConnection();
                        Statement statement = connection.createStatement();
                        PreparedStatement claim = connection.prepareStatement(RawQueue.CLAIM_DELETE)) {
                    statement.execute("LISTEN bench_raw");
                    while (!stop.get()) {
                        PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(100);
                        if (notifications == null) {
                            continue;
                        }
                        claim.setString(1, QUEUE);
                        claim.setInt(2, 10);
                        try (ResultSet rows = claim.executeQuery()) {
                            while (rows.next()) {
                                long sent = sentNanos(rows.getString(2));
                                latencies.record(System.nanoTime() - sent);
                                consumed.incrementAndGet();
                            }
                        }
                    }
                }
                return null;
            });
            try (Connection connection = database.pool.getConnection(); PreparedStatement insert = connection
                .prepareStatement("WITH i AS (" + RawQueue.INSERT_ONE + " RETURNING 1) "
                        + "SELECT pg_notify('bench_raw', 'x') FROM i")) {
                int warmUp = pickupWarmUpJobs();
                for (int i = 0; i < warmUp; i++) {
                    insert.setString(1, QUEUE);
                    insert.setString(2, "{\"sentNanos\": " + System.nanoTime() + "}");
                    insert.executeQuery().close();
                }
                awaitHandled(consumed::get, warmUp, 60);
                latencies.clear();
                int jobs = (int) (sizes.pickup().toMillis() / 50);
                for (int i = 0; i < jobs; i++) {
                    insert.setString(1, QUEUE);
                    insert.setString(2, "{\"sentNanos\": " + System.nanoTime() + "}");
                    insert.executeQuery().close();
                    LockSupport.parkNanos(50_000_000);
                }
            }
            LockSupport.parkNanos(500_000_000);
            stop.set(true);
            listening.get(10, TimeUnit.SECONDS);
            consumer.shutdown();
        }
        return latencies;
    }

    // ---------------------------------------------------------------- backlog scaling

    List<Result> backlog() throws Exception {
        Setting setting = new Setting(64, 50);
        Pair backlog = interleaved(() -> backlogRun(setting, sizes.backlogLarge(), sizes.backlogLarge()),
                () -> backlogRun(setting, sizes.backlogWork(), 0), sizes.backlogWork());
        List<Result> rows = new ArrayList<>();
        rows.add(new Result("backlog scaling", "first " + sizes.backlogWork() + " jobs of " + sizes.backlogLarge()
                + " ready + " + sizes.backlogLarge() + " scheduled vs of " + sizes.backlogWork() + " ready",
                backlog.pgqueue(), backlog.baseline(), "jobs/s", true,
                "LEASE, " + setting + "; baseline column = pgqueue with the small backlog; " + backlog.method()));
        rows.addAll(backlog.cpuRows("backlog scaling", "large backlog vs small", "drained"));
        return rows;
    }

    private double backlogRun(Setting setting, int ready, int scheduled) throws Exception {
        int pool = 8;
        try (Database database = server.createDatabase("backlog", pool);
                PgQueueApp app = PgQueueApp.start(database, pool, drainProperties("LEASE", setting, true, true))) {
            preload(database, ready, scheduled);
            PgQueueApp.NoopListener listener = app.listener();
            int work = sizes.backlogWork();
            return rate(work, () -> {
                app.startListeners();
                while (listener.handled.get() < work) {
                    LockSupport.parkNanos(1_000_000);
                }
            });
        }
    }

    // ---------------------------------------------------------------- metrics cost

    List<Result> metricsCost() throws Exception {
        Setting setting = new Setting(64, 50);
        int jobs = sizes.drainJobs() / 2;
        // a warm-up round of each variant, then interleaved rounds: JIT and background noise fall on all alike
        drainPgqueue("LEASE", setting, jobs, true, true);
        drainPgqueue("LEASE", setting, jobs, false, false);
        List<Double> on = new ArrayList<>();
        List<Double> countersOnly = new ArrayList<>();
        List<Double> off = new ArrayList<>();
        for (int round = 0; round < Pair.ROUNDS; round++) {
            on.add(drainPgqueue("LEASE", setting, jobs, true, true));
            countersOnly.add(drainPgqueue("LEASE", setting, jobs, true, false));
            off.add(drainPgqueue("LEASE", setting, jobs, false, false));
        }
        String notes = "LEASE, " + setting + ", " + jobs + " jobs; baseline column = pgqueue with "
                + "pgqueue.counters.enabled=false and metrics off; " + Pair.METHOD;
        return List.of(new Result("metrics cost", "drain with counters and metrics on vs off", median(on), median(off),
                "jobs/s", true, notes), new Result("metrics cost", "drain with counters on, metrics off vs both off",
                median(countersOnly), median(off), "jobs/s", true, notes));
    }

    // ---------------------------------------------------------------- payload sizes

    /** Payload sizes measured by {@link #payloads(int[])} by default, in bytes of JSON. */
    static final int[] PAYLOAD_SIZES = { 100, 2 * 1024, 32 * 1024, 256 * 1024 };

    static final int[] SMOKE_PAYLOAD_SIZES = { 100, 2 * 1024 };

    /**
     * Enqueue (send, one per transaction, 8 threads) and drain (LEASE 128/50) with payloads of 100 B to 256 KB,
     * each against the raw SQL of the same shape moving the same JSON (the raw consumer reads each payload as a
     * String); about 64 MB of incompressible payload per send round and 128 MB per drain round.
     */
    List<Result> payloads(int[] payloadSizes) throws Exception {
        List<Result> results = new ArrayList<>();
        int threads = 8;
        Setting drainSetting = new Setting(128, 50);
        for (int size : payloadSizes) {
            int jobs = Math.min(sizes.sends(), Math.max(threads * 50, (64 << 20) / size));
            int perThread = jobs / threads;
            // random text: incompressible, as real payloads are (TOAST would shrink a repeated character to nothing)
            byte[] random = new byte[(size - 24) * 3 / 4];
            new java.util.Random(size).nextBytes(random);
            String data = java.util.Base64.getEncoder().encodeToString(random);
            String json = "{\"n\": 1, \"data\": \"" + data + "\"}";
            Map<String, Object> payload = Map.of("n", 1, "data", data);
            try (Database database = server.createDatabase("payload", threads); PgQueueApp app = PgQueueApp.start(database,
                    threads, Map.of("pgqueue.maintenance.enabled", "false"))) {
                QueueTemplate template = app.template();
                Pair send = interleaved(() -> {
                    truncate(database);
                    return rate(perThread * threads, () -> parallel(threads, (t) -> {
                        for (int i = 0; i < perThread; i++) {
                            template.send(QUEUE, payload);
                        }
                    }));
                }, () -> {
                    truncate(database);
                    return rate(perThread * threads, () -> parallel(threads, (t) -> {
                        try (Connection connection = database.pool.getConnection();
                                PreparedStatement insert = connection.prepareStatement(RawQueue.INSERT_ONE)) {
                            for (int i = 0; i < perThread; i++) {
                                insert.setString(1, QUEUE);
                                insert.setString(2, json);
                                insert.executeUpdate();
                            }
                        }
                    }));
                }, (long) perThread * threads);
                results.add(new Result("payload size", bytes(size) + ": send, 1 per transaction, " + threads + " threads",
                        send.pgqueue(), send.baseline(), "jobs/s", true, (perThread * threads) + " jobs; raw: "
                                + "single-row INSERT of the same JSON; " + send.method()));
                results.addAll(send.cpuRows("payload size", bytes(size) + ": send: pgqueue vs raw", "were sent"));
            }
            int drainJobs = Math.min(sizes.drainJobs(), Math.max(500, (128 << 20) / size));
            Setting rawSetting = new Setting(LEASE_BASELINE_CONNECTIONS, drainSetting.batch());
            Pair drain = interleaved(() -> drainPgqueue("LEASE", drainSetting, drainJobs, true, true, size),
                    () -> drainRaw("LEASE", rawSetting, drainJobs, size), drainJobs);
            results.add(new Result("payload size", bytes(size) + ": drain LEASE " + drainSetting, drain.pgqueue(),
                    drain.baseline(), "jobs/s", true, drainJobs + " jobs preloaded; raw: " + LEASE_BASELINE_CONNECTIONS
                            + " connections, lease UPDATE + batched DELETE; " + drain.method()));
            results.addAll(drain.cpuRows("payload size", bytes(size) + ": drain: pgqueue vs raw", "drained"));
        }
        return results;
    }

    private static String bytes(int size) {
        return (size < 1024) ? size + " B" : (size / 1024) + " KB";
    }

    // ---------------------------------------------------------------- helpers

    /** Inserts ready jobs (and scheduled ones a day ahead) straight into the table, with their counts. */
    static void preload(Database database, int ready, int scheduled) throws SQLException {
        preload(database, ready, scheduled, 0);
    }

    /** As {@link #preload(Database, int, int)}, the ready jobs' payloads padded to about this many bytes. */
    static void preload(Database database, int ready, int scheduled, int payloadBytes) throws SQLException {
        // md5 text of distinct values: incompressible, as real payloads are (TOAST would shrink repeats to nothing)
        String payload = (payloadBytes > 0)
                ? "jsonb_build_object('n', g, 'data', (SELECT string_agg(md5(g::text || ':' || i), '') FROM "
                        + "generate_series(1, " + Math.max(1, (payloadBytes - 24) / 32) + ") AS i))"
                : "jsonb_build_object('n', g)";
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO pgqueue.job (queue, state, payload) SELECT '" + QUEUE
                    + "', 'ready', " + payload + " FROM generate_series(1, " + ready + ") AS g");
            if (scheduled > 0) {
                statement.execute("INSERT INTO pgqueue.job (queue, state, run_at, payload) SELECT '" + QUEUE
                        + "', 'scheduled', now() + interval '1 day', jsonb_build_object('n', g) "
                        + "FROM generate_series(1, " + scheduled + ") AS g");
            }
            statement.execute("INSERT INTO pgqueue.queue_counter_delta (queue, ready, scheduled, enqueued) VALUES ('"
                    + QUEUE + "', " + ready + ", " + scheduled + ", " + (ready + scheduled) + ")");
            statement.execute("VACUUM ANALYZE pgqueue.job");
            checkpoint(statement);
        }
    }

    /**
     * Starts the measured work right after a checkpoint, so that every round writes the same full-page images
     * (the first change to each page after a checkpoint logs the whole page) and no checkpoint that the rounds
     * before it brought on falls inside it: without it, the CPU a drained job costs moved by a third between
     * rounds of the same build. Needs the right to checkpoint (a superuser, or pg_checkpoint on PostgreSQL 15+);
     * without it the rounds run as they come.
     */
    static void checkpoint(Statement statement) {
        try {
            statement.execute("CHECKPOINT");
        }
        catch (SQLException ex) {
            if (CHECKPOINT_REFUSED.compareAndSet(false, true)) {
                System.out.println("   (no CHECKPOINT before the measured rounds: " + ex.getMessage() + ")");
            }
        }
    }

    private static final AtomicBoolean CHECKPOINT_REFUSED = new AtomicBoolean();

    /** Waits until the listener handled every job and no row is left (LEASE acknowledgements are async). */
    static void awaitDrained(Database database, LongSupplier handled, long jobs) throws SQLException {
        while (handled.getAsLong() < jobs) {
            LockSupport.parkNanos(1_000_000);
        }
        try (Connection connection = database.pool.getConnection();
                PreparedStatement left = connection.prepareStatement(
                        "SELECT EXISTS (SELECT 1 FROM pgqueue.job WHERE queue = ? AND state IN ('ready', 'running'))")) {
            left.setString(1, QUEUE);
            while (true) {
                try (ResultSet rows = left.executeQuery()) {
                    rows.next();
                    if (!rows.getBoolean(1)) {
                        return;
                    }
                }
                LockSupport.parkNanos(2_000_000);
            }
        }
    }

    /** The send time in a raw job's payload {"sentNanos": n}. */
    static long sentNanos(String payload) {
        return Long.parseLong(payload.substring(payload.indexOf(':') + 1, payload.indexOf('}')).trim());
    }

    /** Medians of pgqueue and of its baseline measured by {@link #interleaved}. */
    /**
     * pgqueue's and the baseline's medians over the alternating rounds, and each round's ratio (pgqueue over the
     * baseline measured right after it), whose spread says how far one run of this machine can be trusted.
     */
    record Pair(double pgqueue, double baseline, List<Double> ratios, List<MachineCpu.Spent> ours,
            List<MachineCpu.Spent> theirs) {

        static final int ROUNDS = BenchSettings.rounds();

        static final String METHOD = "median of " + ROUNDS + " alternating rounds after a warm-up round";

        /** {@link #METHOD} with the rounds' ratios: min / median / max. */
        String method() {
            if (ratios.isEmpty()) {
                return METHOD;
            }
            return METHOD + "; ratio per round min " + format(Collections.min(ratios)) + " / median "
                    + format(median(ratios)) + " / max " + format(Collections.max(ratios));
        }

        /**
         * The CPU per job of both sides (machine, this JVM, the server), beside the throughput: the figure noise
         * disturbs least. Empty when the rounds were not metered.
         */
        List<Result> cpuRows(String scenario, String versus, String work) {
            return ours.isEmpty() ? List.of() : MachineCpu.rows(scenario, versus, ours, theirs, work);
        }

        private static String format(double ratio) {
            return String.format(java.util.Locale.ROOT, "%.2f", ratio);
        }
    }

    /**
     * Measures pgqueue and its baseline in alternating rounds after one discarded warm-up round of each, so
     * that JIT compilation and background noise fall on both alike.
     */
    static Pair interleaved(Callable<Double> pgqueue, Callable<Double> baseline) throws Exception {
        return interleaved(pgqueue, baseline, 0);
    }

    /**
     * As {@link #interleaved(Callable, Callable)}; with {@code jobs} per round (above zero), each side's CPU per job
     * too, from the measured interval of each counted round ({@link MachineCpu}).
     */
    static Pair interleaved(Callable<Double> pgqueue, Callable<Double> baseline, long jobs) throws Exception {
        pgqueue.call();
        baseline.call();
        List<Double> ours = new ArrayList<>();
        List<Double> raw = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        List<MachineCpu.Spent> ourCpu = new ArrayList<>();
        List<MachineCpu.Spent> rawCpu = new ArrayList<>();
        Callable<Double> ourRound = (jobs > 0) ? MachineCpu.metered(pgqueue, jobs, ourCpu) : pgqueue;
        Callable<Double> rawRound = (jobs > 0) ? MachineCpu.metered(baseline, jobs, rawCpu) : baseline;
        for (int round = 0; round < Pair.ROUNDS; round++) {
            ours.add(ourRound.call());
            raw.add(rawRound.call());
            ratios.add(ours.get(round) / raw.get(round));
        }
        return new Pair(median(ours), median(raw), ratios, ourCpu, rawCpu);
    }

    /**
     * What the database's other sessions are doing, one line each, then the job table's dead rows and
     * vacuums and the plan of the claim's read of ready jobs (without its locks), for a dump.
     */
    private static String sessions(Database database) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            appendRows(text, statement, """
                    SELECT pid, state, wait_event_type || '/' || wait_event, round(extract(epoch FROM clock_timestamp()
                           - query_start) * 1000) || ' ms', left(regexp_replace(query, '\\s+', ' ', 'g'), 400)
                    FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                    ORDER BY state, pid""");
            text.append("  job table:\n");
            appendRows(text, statement, """
                    SELECT 'live ' || n_live_tup, 'dead ' || n_dead_tup, 'last autovacuum ' || last_autovacuum,
                           'autovacuums ' || autovacuum_count, 'heap pages ' || pg_relation_size(relid) / 8192
                    FROM pg_stat_user_tables WHERE schemaname = 'pgqueue' AND relname = 'job'""");
            appendRows(text, statement, "EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM pgqueue.job WHERE queue = '" + QUEUE
                    + "' AND state = 'ready' ORDER BY priority DESC, run_at, id LIMIT 10");
        }
        return text.toString();
    }

    private static void appendRows(StringBuilder text, Statement statement, String sql) throws SQLException {
        try (ResultSet rows = statement.executeQuery(sql)) {
            int columns = rows.getMetaData().getColumnCount();
            while (rows.next()) {
                text.append(" ");
                for (int column = 1; column <= columns; column++) {
                    text.append(' ').append(rows.getString(column));
                }
                text.append('\n');
            }
        }
    }

    /**
     * Empties the job and counter tables between rounds that insert. The application's gauges read the same
     * tables in another order: a deadlock between the two is retried, not a failed run.
     */
    static void truncate(Database database) throws SQLException {
        for (int attempt = 1;; attempt++) {
            try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("TRUNCATE pgqueue.job, pgqueue.queue_counter_delta, pgqueue.queue_counter");
                return;
            }
            catch (SQLException ex) {
                if (!"40P01".equals(ex.getSQLState()) || attempt == 3) {
                    throw ex;
                }
            }
        }
    }

    /** Runs the work and returns items per second. */
    static double rate(long items, ThrowingRunnable work) throws Exception {
        MachineCpu.Spent cpu = MachineCpu.now();
        long start = System.nanoTime();
        work.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        MachineCpu.since(cpu);
        return items / seconds;
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get(sorted.size() / 2);
    }

    /** Runs the same task on n threads and waits for all. */
    static void parallel(int threads, ThreadTask task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                futures.add(pool.submit(() -> {
                    ClientCpu.measured(task, index);
                    return null;
                }));
            }
            for (Future<Void> future : futures) {
                future.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** Calls the action at a total rate across n threads for the duration. */
    static void paced(int threads, int ratePerSecond, Duration duration, ThrowingRunnable action) throws Exception {
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) * threads / ratePerSecond;
        long end = System.nanoTime() + duration.toNanos();
        parallel(threads, (t) -> {
            long next = System.nanoTime() + intervalNanos * t / threads;
            while (next < end) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                action.run();
                next += intervalNanos;
            }
        });
    }

    @FunctionalInterface
    interface ThrowingRunnable {

        void run() throws Exception;
    }

    @FunctionalInterface
    interface ThreadTask {

        void run(int thread) throws Exception;
    }
}
