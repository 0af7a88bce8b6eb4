package io.pgqueue.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.benchmark.BenchServer.Database;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;

/**
 * LEASE handlers that wait 10 ms on I/O at concurrency 1,000, on platform threads and on virtual threads
 * ({@code pgqueue.listener.worker-threads}): the drain rate of a backlog against the ideal (1,000 / 10 ms),
 * the most handlers waiting at once, the database connections in use while they wait (sampled every
 * millisecond), the platform threads of the JVM and its resident memory. Virtual threads need Java 21 or
 * later: on an older JVM their half is skipped with a message.
 */
final class VirtualThreadsScenario {

    private static final String QUEUE = "work";

    private static final int CONCURRENCY = 1_000;

    /** Connections of the application's pool: the handlers must not need one each. */
    private static final int POOL = 20;

    private static final HandlerWorkScenario.Shape SHAPE = new HandlerWorkScenario.Shape(
            "LEASE, 10 ms of sleep (I/O), 1,000 workers", "LEASE", CONCURRENCY, 100, Duration.ofMillis(10), false);

    private VirtualThreadsScenario() {
    }

    static List<Result> run(BenchServer server, int jobs) throws Exception {
        List<Result> results = new ArrayList<>();
        results.addAll(measure(server, "platform", jobs));
        if (Runtime.version().feature() < 21) {
            System.out.println("   virtual threads: skipped, this JVM is Java " + Runtime.version().feature()
                    + " (run the benchmark on Java 21 or later)");
        }
        else {
            results.addAll(measure(server, "virtual", jobs));
        }
        return results;
    }

    private static List<Result> measure(BenchServer server, String threads, int jobs) throws Exception {
        try (Database database = server.createDatabase("vthreads", POOL + 4);
                PgQueueApp app = PgQueueApp.start(database, POOL, Map.of("pgqueue.listener.worker-threads", threads))) {
            HandlerWorkScenario.Worker worker = new HandlerWorkScenario.Worker(app.bean(DataSource.class), SHAPE);
            Method handle = HandlerWorkScenario.Worker.class.getDeclaredMethod("handle", PgQueueApp.Tick.class);
            QueueListenerContainer container = app.bean(QueueListenerContainerRegistry.class)
                .register(new ListenerEndpoint(worker, handle, QUEUE, null, String.valueOf(CONCURRENCY), "LEASE",
                        String.valueOf(SHAPE.batch()), null, null));
            QueueAdmin admin = app.bean(QueueAdmin.class);
            admin.pause(QUEUE);
            for (int sent = 0; sent < jobs; sent += 1_000) {
                app.template().sendBatch(QUEUE, IntStream.range(0, Math.min(1_000, jobs - sent))
                    .mapToObj((i) -> new PgQueueApp.Tick(0))
                    .toList());
            }
            long residentBefore = residentKilobytes();
            container.start();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            Sampler sampler = new Sampler((HikariDataSource) app.bean(DataSource.class));
            sampler.start();
            double rate;
            try {
                rate = Scenarios.rate(jobs, () -> {
                    admin.resume(QUEUE);
                    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
                    while (worker.handled.get() < jobs && System.nanoTime() < deadline) {
                        LockSupport.parkNanos(1_000_000);
                    }
                });
            }
            finally {
                sampler.stop();
            }
            container.stop();
            if (worker.handled.get() < jobs) {
                throw new IllegalStateException("only " + worker.handled.get() + " of " + jobs + " jobs handled");
            }
            double handlerMillis = worker.meanNanos() / 1e6;
            double ideal = CONCURRENCY * 1000 / handlerMillis;
            String name = "LEASE, 10 ms I/O, 1,000 workers, " + threads + " threads";
            System.out.println(String.format(Locale.ROOT, "   %s: %.0f jobs/s of an ideal %.0f (%.2f of it), at most %d "
                    + "handlers at once, at most %d of %d connections in use, at most %d platform threads, resident "
                    + "memory +%d MB", name, rate, ideal, rate / ideal, worker.maxRunning.get(),
                    sampler.mostConnections.get(), POOL, sampler.mostThreads.get(),
                    (sampler.mostResident.get() - residentBefore) / 1024));
            String notes = String.format(Locale.ROOT, "%d jobs preloaded, batch %d; ideal = 1,000 / handler time "
                    + "measured in the handler (%.2f ms); at most %d handlers at once; Java %d", jobs, SHAPE.batch(),
                    handlerMillis, worker.maxRunning.get(), Runtime.version().feature());
            return List.of(new Result("virtual threads", name + ": drain", rate, ideal, "jobs/s", true, notes),
                    new Result("virtual threads", name + ": connections in use (most)", sampler.mostConnections.get(),
                            POOL, "conns", false, "sampled every ms while draining; baseline column = the pool's size"),
                    new Result("virtual threads", name + ": platform threads (most)", sampler.mostThreads.get(),
                            Double.NaN, "threads", false, "the JVM's live platform threads while draining"),
                    new Result("virtual threads", name + ": resident memory growth", 
                            (sampler.mostResident.get() - residentBefore) / 1024.0, Double.NaN, "MB", false,
                            "the process's resident set while draining, less before the container started"));
        }
    }

    /** The JVM's resident set in kB (Linux), or 0 where /proc does not tell. */
    static long residentKilobytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        }
        catch (java.io.IOException | NumberFormatException ex) {
            // not Linux: no figure
        }
        return 0;
    }

    /** Samples the pool's connections in use, the platform threads and the resident memory every millisecond. */
    private static final class Sampler {

        final AtomicInteger mostConnections = new AtomicInteger();

        final AtomicInteger mostThreads = new AtomicInteger();

        final AtomicLong mostResident = new AtomicLong();

        private final AtomicBoolean running = new AtomicBoolean(true);

        private final HikariDataSource pool;

        private final Thread thread;

        Sampler(HikariDataSource pool) {
            this.pool = pool;
            this.thread = new Thread(this::sample, "bench-sampler");
            this.thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join();
        }

        private void sample() {
            int round = 0;
            while (running.get()) {
                mostConnections.accumulateAndGet(pool.getHikariPoolMXBean().getActiveConnections(), Math::max);
                mostThreads.accumulateAndGet(ManagementFactory.getThreadMXBean().getThreadCount(), Math::max);
                if (round++ % 20 == 0) {
                    mostResident.accumulateAndGet(residentKilobytes(), Math::max);
                }
                LockSupport.parkNanos(1_000_000);
            }
        }
    }
}
