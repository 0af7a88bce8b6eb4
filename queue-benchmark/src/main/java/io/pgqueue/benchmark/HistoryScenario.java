package io.pgqueue.benchmark;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.benchmark.BenchServer.Database;
import io.pgqueue.internal.persistence.HistoryRepository;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;

/**
 * The partitioned history against the unpartitioned one it replaced, on the same rows: expiring them (dropping
 * whole partitions, against pgqueue's former retention {@code DELETE} of 1,000 rows per statement on a table
 * with the former indexes), with the time it takes and the dead rows it leaves; then look-ups by id and pages
 * of the newest finished jobs through {@code QueueAdmin}: the rows finished over the nine days before
 * yesterday, a partition a day, retention one day.
 */
final class HistoryScenario {

    private static final int DAYS = 10;

    private static final int QUEUES = 10;

    private HistoryScenario() {
    }

    static List<Result> run(BenchServer server, int rows) throws Exception {
        List<Result> results = new ArrayList<>();
        try (Database database = server.createDatabase("history", 8); PgQueueApp app = PgQueueApp.start(database, 8,
                Map.of("pgqueue.history.enabled", "true", "pgqueue.history.retention", "1d",
                        "pgqueue.maintenance.enabled", "false"))) {
            Instant today = Instant.now().truncatedTo(ChronoUnit.DAYS);
            try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
                // the history as it looks ten days after the upgrade: the first partition ends ten days ago
                statement.execute("ALTER TABLE pgqueue.job_history DETACH PARTITION pgqueue.job_history_initial");
                statement.execute("ALTER TABLE pgqueue.job_history ATTACH PARTITION pgqueue.job_history_initial FOR "
                        + "VALUES FROM (MINVALUE) TO ('" + today.minus(Duration.ofDays(DAYS)) + "')");
                for (int day = DAYS; day >= 1; day--) {
                    Instant from = today.minus(Duration.ofDays(day));
                    String name = "job_history_" + from.toString().substring(0, 10).replace("-", "");
                    statement.execute("CREATE TABLE pgqueue." + name + " (LIKE pgqueue.job_history INCLUDING DEFAULTS "
                            + "INCLUDING CONSTRAINTS)");
                    statement.execute("CREATE INDEX " + name + "_id_idx ON pgqueue." + name + " (id)");
                    statement.execute("ALTER TABLE pgqueue.job_history ATTACH PARTITION pgqueue." + name + " FOR VALUES "
                            + "FROM ('" + from + "') TO ('" + from.plus(Duration.ofDays(1)) + "')");
                }
                String spread = "SELECT g, 'q' || (g % " + QUEUES + "), jsonb_build_object('n', g), 1, "
                        + "timestamptz '" + today.minus(Duration.ofDays(DAYS)) + "' + (g::float8 / " + rows + ") * interval '"
                        + (DAYS - 1) + " days' - interval '1 minute', timestamptz '" + today.minus(Duration.ofDays(DAYS))
                        + "' + (g::float8 / " + rows + ") * interval '" + (DAYS - 1) + " days' FROM generate_series(1, "
                        + rows + ") AS g";
                statement.execute("INSERT INTO pgqueue.job_history (id, queue, payload, attempts, created_at, finished_at) "
                        + spread);
                statement.execute("VACUUM ANALYZE pgqueue.job_history");
                // the former history: one table, its indexes
                statement.execute("CREATE TABLE pgqueue.job_history_unpartitioned (LIKE pgqueue.job_history INCLUDING "
                        + "DEFAULTS INCLUDING CONSTRAINTS)");
                statement.execute("INSERT INTO pgqueue.job_history_unpartitioned (id, queue, payload, attempts, created_at, "
                        + "finished_at) " + spread);
                statement.execute("ALTER TABLE pgqueue.job_history_unpartitioned ADD PRIMARY KEY (id)");
                statement.execute("CREATE INDEX ON pgqueue.job_history_unpartitioned (finished_at)");
                statement.execute("CREATE INDEX ON pgqueue.job_history_unpartitioned (queue, state, id)");
                statement.execute("VACUUM ANALYZE pgqueue.job_history_unpartitioned");
            }
            results.addAll(reads(app.bean(QueueAdmin.class), rows));

            String notes = String.format("%,d rows finished over %d days, all past retention; baseline: the former "
                    + "retention DELETE, 1,000 rows a statement, on the unpartitioned table", rows, DAYS - 1);
            long start = System.nanoTime();
            // what maintenance runs, called here so that no pass of its races the setup above
            app.bean(Repositories.class).history().maintainPartitions(new HistoryRepository.PartitionPlan(
                    Duration.ofDays(1), 3, Duration.ofDays(1), Duration.ofHours(1)));
            double dropSeconds = (System.nanoTime() - start) / 1e9;
            start = System.nanoTime();
            long deleted = deleteUnpartitioned(database, Duration.ofDays(1));
            double deleteSeconds = (System.nanoTime() - start) / 1e9;
            if (deleted != rows) {
                throw new IllegalStateException("The former retention deleted " + deleted + " of " + rows + " rows");
            }
            results.add(new Result("history", "expire all rows (s)", dropSeconds, deleteSeconds, "s", false, notes));
            long[] dead = deadRows(database);
            results.add(new Result("history", "dead rows left by expiring them", dead[0], dead[1], "rows", false,
                    notes + "; pg_stat_user_tables.n_dead_tup after the statistics flushed"));
        }
        return results;
    }

    /** p50/p99 of a look-up by id and of the first page of a queue's completed jobs. */
    private static List<Result> reads(QueueAdmin admin, int rows) {
        Latencies byId = new Latencies(2_000);
        Latencies pages = new Latencies(2_000);
        for (int i = 0; i < 1_200; i++) {
            long id = 1 + ThreadLocalRandom.current().nextLong(rows);
            long start = System.nanoTime();
            admin.job(id);
            if (i >= 200) {
                byId.record(System.nanoTime() - start);
            }
            String queue = "q" + ThreadLocalRandom.current().nextInt(QUEUES);
            start = System.nanoTime();
            admin.jobs(JobQuery.queue(queue).states(JobState.COMPLETED).limit(50).build());
            if (i >= 200) {
                pages.record(System.nanoTime() - start);
            }
        }
        String notes = String.format("%,d history rows in %d daily partitions (plus the first, the default and those "
                + "ahead); 1,000 calls after 200 of warm-up; through QueueAdmin", rows, DAYS);
        List<Result> results = new ArrayList<>();
        for (double p : new double[] { 50, 99 }) {
            results.add(new Result("history", "job by id p" + (int) p, byId.percentileMillis(p), Double.NaN, "ms", false,
                    notes));
            results.add(new Result("history", "page of 50 completed p" + (int) p, pages.percentileMillis(p), Double.NaN,
                    "ms", false, notes));
        }
        return results;
    }

    private static long deleteUnpartitioned(Database database, Duration retention) throws Exception {
        long deleted = 0;
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            while (true) {
                try (ResultSet result = statement.executeQuery("""
                        WITH expired AS (
                            DELETE FROM pgqueue.job_history_unpartitioned WHERE id = ANY(ARRAY(
                                SELECT id FROM pgqueue.job_history_unpartitioned
                                WHERE finished_at < now() - interval '%d seconds'
                                ORDER BY finished_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
                            RETURNING id
                        )
                        SELECT count(*) FROM expired""".formatted(retention.toSeconds()))) {
                    result.next();
                    long batch = result.getLong(1);
                    deleted += batch;
                    if (batch < 1000) {
                        return deleted;
                    }
                }
            }
        }
    }

    /** Dead rows in the partitioned history and in the former table, once the statistics have been flushed. */
    private static long[] deadRows(Database database) throws Exception {
        java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofSeconds(2).toNanos());
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("""
                        SELECT coalesce(sum(n_dead_tup) FILTER (WHERE relname <> 'job_history_unpartitioned'), 0),
                               coalesce(sum(n_dead_tup) FILTER (WHERE relname = 'job_history_unpartitioned'), 0)
                        FROM pg_stat_user_tables WHERE schemaname = 'pgqueue' AND relname LIKE 'job_history%'""")) {
            rows.next();
            return new long[] { rows.getLong(1), rows.getLong(2) };
        }
    }
}
