package io.pgqueue.benchmark;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.benchmark.BenchServer.Database;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;

import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * Handlers that do work: 1 ms and 10 ms of database time inside the TRANSACTIONAL transaction (a row written
 * and the rest waited in the server), and 10 ms of sleep (I/O) in LEASE mode. For each, the drain rate of a
 * backlog against the ideal, concurrency / handler time, then the enqueue-to-start latency with jobs offered
 * at 50 % and 90 % of the rate measured.
 */
final class HandlerWorkScenario {

    private static final String QUEUE = "work";

    private static final Duration PACED = Duration.ofSeconds(BenchSettings.pacedSeconds());

    private static final int PRODUCERS = 4;

    private HandlerWorkScenario() {
    }

    /**
     * One kind of handler.
     *
     * @param name how the results name it
     * @param mode LEASE or TRANSACTIONAL
     * @param concurrency workers
     * @param batch claim batch
     * @param work the handler's time per job
     * @param database whether that time is spent in the database, in the job's transaction
     */
    record Shape(String name, String mode, int concurrency, int batch, Duration work, boolean database) {

        double idealRate() {
            return concurrency * 1e9 / work.toNanos();
        }
    }

    static final List<Shape> SHAPES = List.of(
            new Shape("TRANSACTIONAL, 1 ms of database work", "TRANSACTIONAL", 8, 10, Duration.ofMillis(1), true),
            new Shape("TRANSACTIONAL, 10 ms of database work", "TRANSACTIONAL", 8, 10, Duration.ofMillis(10), true),
            new Shape("LEASE, 10 ms of sleep (I/O)", "LEASE", 64, 50, Duration.ofMillis(10), false));

    static List<Result> run(BenchServer server, Duration drainTime) throws Exception {
        List<Result> results = new ArrayList<>();
        for (Shape shape : SHAPES) {
            results.addAll(measure(server, shape, drainTime));
        }
        return results;
    }

    private static List<Result> measure(BenchServer server, Shape shape, Duration drainTime) throws Exception {
        int pool = shape.concurrency() + 6;
        try (Database database = server.createDatabase("work", pool);
                PgQueueApp app = PgQueueApp.start(database, pool, Map.of());
                PgQueueApp publisher = PgQueueApp.start(database, PRODUCERS, Map.of("pgqueue.maintenance.enabled", "false"))) {
            try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE bench_work (id bigserial PRIMARY KEY, at timestamptz DEFAULT now())");
            }
            Worker worker = new Worker(app.bean(DataSource.class), shape);
            Method handle = Worker.class.getDeclaredMethod("handle", PgQueueApp.Tick.class);
            QueueListenerContainer container = app.bean(QueueListenerContainerRegistry.class)
                .register(new ListenerEndpoint(worker, handle, QUEUE, null, String.valueOf(shape.concurrency()),
                        shape.mode(), String.valueOf(shape.batch()), null, null));
            QueueTemplate template = publisher.template();

            // capacity: a backlog of about drainTime at the ideal rate, released to running listeners
            int jobs = (int) Math.max(1_000, shape.idealRate() * drainTime.toNanos() / 1e9);
            QueueAdmin admin = publisher.bean(QueueAdmin.class);
            admin.pause(QUEUE);
            for (int sent = 0; sent < jobs; sent += 1_000) {
                template.sendBatch(QUEUE, IntStream.range(0, Math.min(1_000, jobs - sent))
                    .mapToObj((i) -> new PgQueueApp.Tick(0))
                    .toList());
            }
            container.start();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            double capacity = Scenarios.rate(jobs, () -> {
                admin.resume(QUEUE);
                await(worker.handled, jobs);
            });
            double handlerMillis = worker.meanNanos() / 1e6;
            double ideal = shape.concurrency() * 1000 / handlerMillis;
            System.out.println(String.format(Locale.ROOT, "   %s: %.0f jobs/s of an ideal %.0f (handler %.2f ms, "
                    + "at most %d at once)", shape.name(), capacity, ideal, handlerMillis, worker.maxRunning.get()));
            List<Result> results = new ArrayList<>();
            String notes = String.format(Locale.ROOT, "concurrency %d, batch %d; %d jobs preloaded; ideal = "
                    + "concurrency / handler time measured in the handler (%.2f ms); at most %d handlers at once",
                    shape.concurrency(), shape.batch(), jobs, handlerMillis, worker.maxRunning.get());
            results.add(new Result("handler work", shape.name() + ": drain", capacity, ideal, "jobs/s", true, notes));

            // latency under load: jobs offered at a share of that capacity by another application
            for (double share : new double[] { 0.5, 0.9 }) {
                Latencies latencies = new Latencies(2_000_000);
                worker.latencies = latencies;
                long before = worker.handled.get();
                int rate = (int) (capacity * share);
                AtomicLong offered = new AtomicLong();
                Scenarios.paced(PRODUCERS, rate, PACED, () -> {
                    template.send(QUEUE, new PgQueueApp.Tick(System.nanoTime()));
                    offered.incrementAndGet();
                });
                await(worker.handled, before + offered.get());
                String loadNotes = rate + " jobs/s offered for " + PACED.toSeconds() + " s by another application; "
                        + "enqueue to handler start";
                int percent = (int) Math.round(share * 100);
                results.add(new Result("handler work", shape.name() + ": p50 at " + percent + " % of capacity",
                        latencies.percentileMillis(50), Double.NaN, "ms", false, loadNotes));
                results.add(new Result("handler work", shape.name() + ": p99 at " + percent + " % of capacity",
                        latencies.percentileMillis(99), Double.NaN, "ms", false, loadNotes));
            }
            return results;
        }
    }

    private static void await(AtomicLong handled, long target) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (handled.get() < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + handled.get() + " of " + target + " jobs handled");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** The handler: records when it started, then spends the shape's time in the database or asleep. */
    static final class Worker {

        private final DataSource dataSource;

        private final Shape shape;

        final AtomicLong handled = new AtomicLong();

        /** Time spent in handlers, for the ideal rate of what they really took (pg_sleep overshoots). */
        final AtomicLong busyNanos = new AtomicLong();

        final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();

        final java.util.concurrent.atomic.AtomicInteger maxRunning = new java.util.concurrent.atomic.AtomicInteger();

        volatile Latencies latencies;

        Worker(DataSource dataSource, Shape shape) {
            this.dataSource = dataSource;
            this.shape = shape;
        }

        void handle(PgQueueApp.Tick tick) throws Exception {
            long start = System.nanoTime();
            Latencies recording = latencies;
            if (recording != null && tick.sentNanos() > 0) {
                recording.record(start - tick.sentNanos());
            }
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                work();
            }
            finally {
                running.decrementAndGet();
                busyNanos.addAndGet(System.nanoTime() - start);
            }
            handled.incrementAndGet();
        }

        /** The handler's mean time per job so far, in nanoseconds. */
        double meanNanos() {
            return busyNanos.get() / (double) Math.max(1, handled.get());
        }

        private void work() throws Exception {
            if (shape.database()) {
                // the job's own transaction's connection: the write commits with the acknowledgement
                Connection connection = DataSourceUtils.getConnection(dataSource);
                try (PreparedStatement work = connection.prepareStatement(
                        "WITH written AS (INSERT INTO bench_work DEFAULT VALUES) SELECT pg_sleep(?)")) {
                    work.setDouble(1, shape.work().toNanos() / 1e9);
                    work.execute();
                }
                finally {
                    DataSourceUtils.releaseConnection(connection, dataSource);
                }
            }
            else {
                Thread.sleep(shape.work().toMillis());
            }
        }
    }
}
