package io.pgqueue.benchmark;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;

/**
 * A peer in the same run: db-scheduler (lock-and-fetch polling, its fastest mode, 16 threads) draining the same
 * number of preloaded no-op one-time tasks on the same server, beside pgqueue's best drain setting. Only the
 * library is used, as a Maven dependency; its table is created here with the columns its PostgreSQL schema
 * has.
 */
final class PeerScenario {

    private static final int DB_SCHEDULER_THREADS = 16;

    private PeerScenario() {
    }

    static List<Result> run(Scenarios scenarios, BenchServer server, int jobs) throws Exception {
        Scenarios.Setting best = new Scenarios.Setting(128, 100);
        Scenarios.Pair drain = Scenarios.interleaved(() -> scenarios.drainPgqueue("LEASE", best, jobs, true, true),
                () -> drainDbScheduler(server, jobs), jobs);
        List<Result> rows = new java.util.ArrayList<>();
        rows.add(new Result("peer: db-scheduler 16.12", "drain, pgqueue LEASE " + best + " vs db-scheduler",
                drain.pgqueue(), drain.baseline(), "jobs/s", true, jobs + " no-op jobs preloaded; db-scheduler: "
                        + "lock-and-fetch (0.5, 3.0), " + DB_SCHEDULER_THREADS + " threads, polling 100 ms; baseline "
                        + "column = db-scheduler; " + drain.method()));
        rows.addAll(drain.cpuRows("peer: db-scheduler 16.12", "drain: pgqueue vs db-scheduler", "drained"));
        return rows;
    }

    /** Preloads due one-time tasks and times db-scheduler executing all of them; returns tasks per second. */
    static double drainDbScheduler(BenchServer server, int jobs) throws Exception {
        try (BenchServer.Database database = server.createDatabase("dbscheduler", DB_SCHEDULER_THREADS + 4)) {
            try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("""
                        CREATE TABLE scheduled_tasks (
                            task_name text NOT NULL, task_instance text NOT NULL, task_data bytea,
                            execution_time timestamptz, picked boolean NOT NULL, picked_by text,
                            last_success timestamptz, last_failure timestamptz, consecutive_failures int,
                            last_heartbeat timestamptz, version bigint NOT NULL, priority smallint, state text,
                            PRIMARY KEY (task_name, task_instance))""");
                statement.execute("CREATE INDEX ON scheduled_tasks (execution_time)");
                statement.execute("CREATE INDEX ON scheduled_tasks (last_heartbeat)");
                statement.execute("CREATE INDEX ON scheduled_tasks (priority DESC, execution_time)");
                statement.execute("INSERT INTO scheduled_tasks (task_name, task_instance, execution_time, picked, version) "
                        + "SELECT 'bench', 'job-' || g, now(), false, 1 FROM generate_series(1, " + jobs + ") AS g");
                statement.execute("ANALYZE scheduled_tasks");
            }
            AtomicLong executed = new AtomicLong();
            OneTimeTask<Void> task = Tasks.oneTime("bench").execute((instance, context) -> executed.incrementAndGet());
            Scheduler scheduler = Scheduler.create(database.pool, task)
                .threads(DB_SCHEDULER_THREADS)
                .pollUsingLockAndFetch(0.5, 3.0)
                .pollingInterval(Duration.ofMillis(100))
                .build();
            try {
                return Scenarios.rate(jobs, () -> {
                    scheduler.start();
                    awaitAll(database, executed, jobs);
                });
            }
            finally {
                scheduler.stop();
            }
        }
    }

    /** Waits until every task ran and its row is gone (a one-time task's row is deleted on completion). */
    private static void awaitAll(BenchServer.Database database, AtomicLong executed, long jobs)
            throws SQLException {
        while (executed.get() < jobs || remaining(database) > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
        }
    }

    private static long remaining(BenchServer.Database database) throws SQLException {
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement();
                var rows = statement.executeQuery("SELECT count(*) FROM scheduled_tasks")) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
