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

    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared hit=(\\d+)(?: read=(\\d+))?");

    private LongTransactionScenario() {
    }

    static List<Result> run(Scenarios run, int jobs) throws Exception {
        List<Result> results = new ArrayList<>();
        for (String mode : List.of("TRANSACTIONAL", "LEASE")) {
            Scenarios.Setting setting = mode.equals("LEASE") ? new Scenarios.Setting(64, 50)
                    : new Scenarios.Setting(8, 50);
            Scenarios.Setting rawSetting = mode.equals("LEASE")
                    ? new Scenarios.Setting(Scenarios.LEASE_BASELINE_CONNECTIONS, 50) : setting;
            List<HeldSnapshot> ours = new ArrayList<>();
            List<HeldSnapshot> raws = new ArrayList<>();
            Scenarios.Pair pgqueue = Scenarios.interleaved(
                    () -> run.drainPgqueue(mode, setting, jobs, true, true, 0, (database) -> remember(ours, database)),
                    () -> run.drainPgqueue(mode, setting, jobs, true, true, 0, Scenarios.Beside.NOTHING));
            Scenarios.Pair raw = Scenarios.interleaved(
                    () -> run.drainRaw(mode, rawSetting, jobs, 0, (database) -> remember(raws, database)),
                    () -> run.drainRaw(mode, rawSetting, jobs, 0, Scenarios.Beside.NOTHING));
            String notes = jobs + " no-op jobs preloaded, " + setting + "; baseline column = the same drain without "
                    + "the snapshot; " + Scenarios.Pair.METHOD;
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
            results.add(new Result("long transaction", mode + " claim read with one job ready after a held drain",
                    last.claimBuffers, lastRaw.claimBuffers, "buffers", false,
                    "EXPLAIN (ANALYZE, BUFFERS) of the claim's read of ready jobs, snapshot still held; "
                            + "baseline column = the raw consumer's table"));
        }
        return results;
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

        long claimBuffers;

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
            java.util.concurrent.locks.LockSupport.parkNanos(java.time.Duration.ofSeconds(11).toNanos());
        }

        @Override
        public void close() throws Exception {
            try (Connection other = database.pool.getConnection(); Statement statement = other.createStatement()) {
                statement.execute("INSERT INTO pgqueue.job (queue, state, payload) VALUES ('bench', 'ready', '{}')");
                try (ResultSet rows = statement.executeQuery("SELECT pg_total_relation_size('pgqueue.job')")) {
                    rows.next();
                    tableBytes = rows.getLong(1);
                }
                try (ResultSet rows = statement.executeQuery("EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM pgqueue.job "
                        + "WHERE queue = 'bench' AND state = 'ready' ORDER BY priority DESC, run_at, id LIMIT 50")) {
                    // the first buffers line is the top node's, the execution's total (planning comes after)
                    while (rows.next() && claimBuffers == 0) {
                        Matcher matcher = BUFFERS.matcher(rows.getString(1));
                        if (matcher.find()) {
                            claimBuffers = Long.parseLong(matcher.group(1))
                                    + ((matcher.group(2) != null) ? Long.parseLong(matcher.group(2)) : 0);
                        }
                    }
                }
            }
            finally {
                connection.rollback();
                connection.close();
            }
        }
    }
}
