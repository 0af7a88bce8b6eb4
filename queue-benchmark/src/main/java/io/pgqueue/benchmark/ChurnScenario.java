package io.pgqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.pgqueue.QueueTemplate;
import io.pgqueue.benchmark.BenchServer.Database;

/**
 * Table health under sustained churn: producers and a LEASE listener run together for a long time while the
 * size of the job table (heap and indexes) and the counter tables is sampled every minute. Run it with
 * {@code --scenario churn --duration 30m}; it is not part of {@code all}.
 */
final class ChurnScenario {

    private static final String SIZES = """
            SELECT pg_relation_size('pgqueue.job') AS heap,
                   pg_indexes_size('pgqueue.job') AS indexes,
                   pg_total_relation_size('pgqueue.queue_counter_delta') AS deltas,
                   (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'pgqueue.job'::regclass) AS dead_tuples,
                   (SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = 'pgqueue.job'::regclass) AS vacuums,
                   (SELECT count(*) FROM pgqueue.job) AS rows
            """;

    private ChurnScenario() {
    }

    static List<Result> run(BenchServer server, Duration duration, int rate) throws Exception {
        int producers = 4;
        Scenarios.Setting setting = new Scenarios.Setting(8, 10);
        try (Database database = server.createDatabase("churn", setting.concurrency() + producers + 4);
                PgQueueApp app = PgQueueApp.start(database, setting.concurrency() + producers + 4,
                        Scenarios.drainProperties("LEASE", setting, true, true))) {
            app.startListeners();
            QueueTemplate template = app.template();
            ExecutorService producing = Executors.newSingleThreadExecutor();
            Future<?> load = producing.submit(() -> {
                Scenarios.paced(producers, rate, duration, () -> template.send("bench", Map.of("churn", true)));
                return null;
            });
            List<long[]> samples = new ArrayList<>();
            long start = System.nanoTime();
            System.out.println("   minute  heap_kB  indexes_kB  deltas_kB  dead_tuples  autovacuums  rows  handled");
            for (int minute = 1; minute <= duration.toMinutes(); minute++) {
                long due = start + TimeUnit.MINUTES.toNanos(minute);
                while (System.nanoTime() < due) {
                    java.util.concurrent.locks.LockSupport.parkNanos(Math.min(due - System.nanoTime(), 1_000_000_000L));
                }
                long[] sample = sample(database);
                samples.add(sample);
                System.out.printf("   %6d %8d %11d %10d %12d %12d %5d %8d%n", minute, sample[0] / 1024, sample[1] / 1024,
                        sample[2] / 1024, sample[3], sample[4], sample[5], app.listener().handled.get());
            }
            load.get(1, TimeUnit.MINUTES);
            producing.shutdown();
            long[] early = samples.get(Math.min(1, samples.size() - 1));
            long[] late = samples.get(samples.size() - 1);
            String notes = rate + " jobs/s sent and handled for " + duration.toMinutes() + " min, default autovacuum "
                    + "settings plus pgqueue's per-table ones; baseline column = size after 2 minutes";
            return List.of(
                    new Result("table health", "job heap + indexes after " + duration.toMinutes() + " min (kB)",
                            (late[0] + late[1]) / 1024.0, (early[0] + early[1]) / 1024.0, "kB", false, notes),
                    new Result("table health", "counter deltas after " + duration.toMinutes() + " min (kB)",
                            late[2] / 1024.0, early[2] / 1024.0, "kB", false, notes));
        }
    }

    private static long[] sample(Database database) throws Exception {
        try (Connection connection = database.pool.getConnection();
                PreparedStatement statement = connection.prepareStatement(SIZES);
                ResultSet rows = statement.executeQuery()) {
            rows.next();
            return new long[] { rows.getLong("heap"), rows.getLong("indexes"), rows.getLong("deltas"),
                    rows.getLong("dead_tuples"), rows.getLong("vacuums"), rows.getLong("rows") };
        }
    }
}
