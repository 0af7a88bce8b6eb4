package io.pgqueue.benchmark;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgqueue.benchmark.BenchServer.Database;

/**
 * A drain while another session of the same database holds a REPEATABLE READ snapshot open for the whole run
 * (a report, a {@code pg_dump}), opened 11 s before the drain starts: vacuum may not remove any row version the drain leaves behind, and no index
 * entry of a claimed job can be marked dead. pgqueue and the raw SKIP LOCKED consumer each drain with and
 * without the snapshot, interleaved; the ratio held/free is the figure. After each held drain, the job table's
 * size and what the claim's read of ready jobs costs (buffers, from {@code EXPLAIN (ANALYZE, BUFFERS)} with one
 * ready job queued) are read while the snapshot is still held.
 */
final class LongTransactionScenario {

    /** How long before the drain the snapshot is taken (pgqueue looks every 5 s and reacts to holds of 5 s). */
    private static final java.time.Duration SETTLE = java.time.Duration.ofSeconds(11);

    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared hit=(\\d+)(?: read=(\\d+))?");

    private LongTransactionScenario() {
    }

    /** A steady offered rate with and without the snapshot: enqueue-to-start latency and jobs handled. */
    static List<Result> steady(Scenarios run, java.time.Duration steady) throws Exception {
        List<Result> results = new ArrayList<>();
        // a discarded warm-up run first: the first run of a JVM pays for its compilation
        run.steadyPgqueue(steady.dividedBy(4), Scenarios.Beside.NOTHING);
        Scenarios.SteadyRun free = run.steadyPgqueue(steady, LongTransactionScenario::settle);
        Scenarios.SteadyRun held = run.steadyPgqueue(steady, HeldSnapshot::new);
        String steadyNotes = "the steady scenario's LEASE listener, " + Scenarios.STEADY_SETTING + ", "
                + Scenarios.STEADY_PRODUCERS + " producers for " + steady.toSeconds() + " s; baseline column = the same "
                + "run without the snapshot";
        for (double p : new double[] { 50, 99 }) {
            results.add(new Result("long transaction", "steady state enqueue-to-start p" + (int) p + ", held vs not",
                    held.latencies().percentileMillis(p), free.latencies().percentileMillis(p), "ms", false,
                    steadyNotes));
        }
        results.add(new Result("long transaction", "steady state jobs handled, held vs not", held.done(), free.done(),
                "jobs", true, steadyNotes));
        return results;
    }

    /** Drains with and without the snapshot, pgqueue and the raw consumer. */
    static List<Result> run(Scenarios run, int jobs) throws Exception {
        List<Result> results = new ArrayList<>();
        for (String mode : List.of("TRANSACTIONAL", "LEASE")) {
            // the listener defaults (4 handlers, claims of 10): many claims, each of which used to re-read the drain
            Scenarios.Setting setting = new Scenarios.Setting(4, 10);
            Scenarios.Setting rawSetting = mode.equals("LEASE")
                    ? new Scenarios.Setting(Scenarios.LEASE_BASELINE_CONNECTIONS, 10) : setting;
            List<HeldSnapshot> ours = new ArrayList<>();
            List<HeldSnapshot> raws = new ArrayList<>();
            Scenarios.Pair pgqueue = Scenarios.interleaved(
                    () -> run.drainPgqueue(mode, setting, jobs, true, true, 0, (database) -> remember(ours, database)),
                    () -> run.drainPgqueue(mode, setting, jobs, true, true, 0, LongTransactionScenario::settle));
            Scenarios.Pair raw = Scenarios.interleaved(
                    () -> run.drainRaw(mode, rawSetting, jobs, 0, (database) -> remember(raws, database)),
                    () -> run.drainRaw(mode, rawSetting, jobs, 0, LongTransactionScenario::settle));
            String notes = jobs + " no-op jobs preloaded, " + setting + "; baseline column = the same drain without "
                    + "the snapshot, started as long after the application as the held one; " + Scenarios.Pair.METHOD;
            results.add(new Result("long transaction", "pgqueue " + mode + " drain, snapshot held vs not",
                    pgqueue.pgqueue(), pgqueue.baseline(), "jobs/s", true, notes));
            results.add(new Result("long transaction", "raw SKIP LOCKED " + mode + " drain, snapshot held vs not",
                    raw.pgqueue(), raw.baseline(), "jobs/s", true, notes.replace(setting.toString(),
                            rawSetting.toString())));
            HeldSnapshot last = ours.get(ours.size() - 1);
            HeldSnapshot lastRaw = raws.get(raws.size() - 1);
            results.add(new Result("long transaction", mode + " job table + indexes after a held drain (kB)",
                    last.tableBytes / 1024.0, lastRaw.tableBytes / 1024.0, "kB", false,
                    "baseline column = the raw consumer's table after its held drain"));
            results.add(new Result("long transaction", mode + " read of ready jobs after a held drain, from the "
                    + "last claimed position vs from the start", last.afterCursorBuffers, last.fromStartBuffers,
                    "buffers", false, "EXPLAIN (ANALYZE, BUFFERS) with one job ready behind the drained ones, snapshot "
                            + "still held: what pgqueue's claims read under a hold, and what every claim read before"));
        }
        return results;
    }

    /** The drain without a snapshot starts as late as the one with it: the application has settled alike. */
    private static AutoCloseable settle(Database database) {
        java.util.concurrent.locks.LockSupport.parkNanos(SETTLE.toNanos());
        return () -> {
        };
    }

    private static AutoCloseable remember(List<HeldSnapshot> held, Database database) throws Exception {
        HeldSnapshot snapshot = new HeldSnapshot(database);
        held.add(snapshot);
        return snapshot;
    }

    /** A REPEATABLE READ transaction that has read a row, open until closed, then what it held back. */
    static final class HeldSnapshot implements AutoCloseable {

        private final Database database;

        private final Connection connection;

        long tableBytes;

        long fromStartBuffers;

        long afterCursorBuffers;

        /** The buffers of the statement's execution: the first line that has them is the top node's. */
        private static long buffers(Statement statement, String query) throws Exception {
            try (ResultSet rows = statement.executeQuery("EXPLAIN (ANALYZE, BUFFERS) " + query)) {
                while (rows.next()) {
                    Matcher matcher = BUFFERS.matcher(rows.getString(1));
                    if (matcher.find()) {
                        return Long.parseLong(matcher.group(1))
                                + ((matcher.group(2) != null) ? Long.parseLong(matcher.group(2)) : 0);
                    }
                }
            }
            return 0;
        }

        HeldSnapshot(Database database) throws Exception {
            this.database = database;
            // a connection of its own: the drain's pool is sized for the drain
            this.connection = java.sql.DriverManager.getConnection(database.url, database.pool.getUsername(),
                    database.pool.getPassword());
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery("SELECT count(*) FROM pgqueue.queue_state").close();
            }
            // a report that started before the drain, as reports do: pgqueue looks every 5 s and reacts to a hold
            // of 5 s or more, so the drain starts once it can have seen it (the raw consumer waits as long)
            java.util.concurrent.locks.LockSupport.parkNanos(SETTLE.toNanos());
        }

        @Override
        public void close() throws Exception {
            String lastRunAt = "-infinity";
            long lastId = 0;
            // the snapshot still sees the drained jobs, if it began after they were sent: where the last of them
            // stands in claim order
            try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(
                    "SELECT run_at::text, id FROM pgqueue.job ORDER BY run_at DESC, id DESC LIMIT 1")) {
                if (rows.next()) {
                    lastRunAt = rows.getString(1);
                    lastId = rows.getLong(2);
                }
            }
            try (Connection other = database.pool.getConnection(); Statement statement = other.createStatement()) {
                statement.execute("INSERT INTO pgqueue.job (queue, state, payload) VALUES ('bench', 'ready', '{}')");
                try (ResultSet rows = statement.executeQuery("SELECT pg_total_relation_size('pgqueue.job')")) {
                    rows.next();
                    tableBytes = rows.getLong(1);
                }
                fromStartBuffers = buffers(statement, "SELECT id FROM pgqueue.job "
                        + "WHERE queue = 'bench' AND state = 'ready' ORDER BY priority DESC, run_at, id LIMIT 50");
                afterCursorBuffers = buffers(statement, "SELECT id FROM pgqueue.job WHERE queue = 'bench' "
                        + "AND state = 'ready' AND priority = 0 AND (run_at, id) > ('" + lastRunAt + "'::timestamptz, "
                        + lastId + ") ORDER BY run_at, id LIMIT 50");
            }
            finally {
                connection.rollback();
                connection.close();
            }
        }
    }
}
