package io.pgqueue.benchmark;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.pgqueue.JobRequest;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.benchmark.BenchServer.Database;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;

/**
 * Flow control at its configured pace, on one node and on two, with the default poll interval (1 s): a queue
 * capped at 4 running jobs with 10 ms handlers (ideal: 4 / handler time), a queue limited to 50 starts per
 * second (ideal: 50/s), both at once as the sample's bills queue has them, and a fair queue whose keys are capped at 2
 * running jobs each with 20 ms handlers, with 8 keys and with one key left (ideal: the slots the caps and the
 * workers allow / handler time). Each row is the rate over a fixed time once the queue runs, against that ideal;
 * the notes say how many ran at once at most, which must never pass the cap.
 */
final class FlowControlScenario {

    private static final int CONCURRENCY = 8;

    private FlowControlScenario() {
    }

    /**
     * One flow-control setting.
     *
     * @param name how the results name it
     * @param queue the queue
     * @param properties the queue's settings
     * @param work each handler's time
     * @param keys fairness keys the jobs are spread over (0: not a fair queue)
     * @param cap most jobs that may run at once in the cluster (the queue's or the keys' caps)
     * @param rate starts per second allowed (0: no rate)
     */
    record Shape(String name, String queue, Map<String, Object> properties, Duration work, int keys, int cap,
            int rate) {

        /** The most jobs per second the setting allows with these handlers on this many nodes' workers. */
        double ideal(int nodes, double handlerMillis) {
            double bySlots = Math.min(cap, nodes * CONCURRENCY) * 1000 / handlerMillis;
            return (rate > 0) ? Math.min(rate, bySlots) : bySlots;
        }
    }

    static final List<Shape> SHAPES = List.of(
            new Shape("max-running 4, 10 ms handlers", "fc-capped", Map.of("pgqueue.queues.fc-capped.max-running", 4),
                    Duration.ofMillis(10), 0, 4, 0),
            new Shape("rate 50/1s, 1 ms handlers", "fc-rate", Map.of("pgqueue.queues.fc-rate.rate", "50/1s"),
                    Duration.ofMillis(1), 0, Integer.MAX_VALUE, 50),
            new Shape("max-running 4 and rate 50/1s (the sample's bills), 5 ms handlers", "fc-bills",
                    Map.of("pgqueue.queues.fc-bills.max-running", 4, "pgqueue.queues.fc-bills.rate", "50/1s"),
                    Duration.ofMillis(5), 0, 4, 50),
            new Shape("fair, 8 keys capped at 2 each, 20 ms handlers", "fc-fair8",
                    Map.of("pgqueue.queues.fc-fair8.fairness.max-running-per-key", 2), Duration.ofMillis(20), 8, 16, 0),
            new Shape("fair, 1 key left capped at 2, 20 ms handlers", "fc-fair1",
                    Map.of("pgqueue.queues.fc-fair1.fairness.max-running-per-key", 2), Duration.ofMillis(20), 1, 2, 0));

    static List<Result> run(BenchServer server, int seconds) throws Exception {
        List<Result> results = new ArrayList<>();
        // -Dbench.flow-control.queues=fc-capped,fc-fair1 measures some shapes only
        List<String> only = List.of(System.getProperty("bench.flow-control.queues", "").split(","));
        for (Shape shape : SHAPES) {
            if (!only.contains("") && !only.contains(shape.queue())) {
                continue;
            }
            for (int nodes = 1; nodes <= 2; nodes++) {
                results.add(measure(server, shape, nodes, seconds));
            }
        }
        return results;
    }

    /** A handler that counts, records how many ran at once, and takes the shape's time. */
    static final class Worker {

        final AtomicLong handled = new AtomicLong();

        final AtomicInteger running = new AtomicInteger();

        final AtomicInteger maxRunning = new AtomicInteger();

        final AtomicLong handlerNanos = new AtomicLong();

        private final long workNanos;

        Worker(Duration work) {
            this.workNanos = work.toNanos();
        }

        public void handle(PgQueueApp.Tick tick) {
            long started = System.nanoTime();
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            LockSupport.parkNanos(workNanos);
            running.decrementAndGet();
            handlerNanos.addAndGet(System.nanoTime() - started);
            handled.incrementAndGet();
        }

        double meanMillis() {
            long count = handled.get();
            return (count == 0) ? Double.NaN : handlerNanos.get() / 1e6 / count;
        }
    }

    private static Result measure(BenchServer server, Shape shape, int nodes, int seconds) throws Exception {
        Map<String, Object> properties = new HashMap<>(shape.properties());
        properties.put("pgqueue.maintenance.enabled", "false");
        Worker worker = new Worker(shape.work());
        List<PgQueueApp> apps = new ArrayList<>();
        try (Database database = server.createDatabase("flow", CONCURRENCY + 6)) {
            try {
                return measure(database, apps, shape, nodes, seconds, worker, properties);
            }
            finally {
                apps.forEach(PgQueueApp::close);
            }
        }
    }

    private static Result measure(Database database, List<PgQueueApp> apps, Shape shape, int nodes, int seconds,
            Worker worker, Map<String, Object> properties) throws Exception {
        Method handle = Worker.class.getDeclaredMethod("handle", PgQueueApp.Tick.class);
        for (int n = 0; n < nodes; n++) {
            apps.add(PgQueueApp.start(database, CONCURRENCY + 6, properties));
        }
        QueueAdmin admin = apps.get(0).bean(QueueAdmin.class);
        admin.pause(shape.queue());
        // more than the setting allows in the measured time: the queue never runs dry
        int jobs = (int) (shape.ideal(nodes, shape.work().toNanos() / 1e6) * (seconds + 3));
        for (int sent = 0; sent < jobs; sent += 1_000) {
            apps.get(0).template().sendBatch(shape.queue(), IntStream.range(sent, Math.min(sent + 1_000, jobs))
                .mapToObj((i) -> JobRequest.of(new PgQueueApp.Tick(0), (shape.keys() == 0) ? SendOptions.defaults()
                        : SendOptions.builder().fairnessKey("k" + (i % shape.keys())).build()))
                .toList());
        }
        List<QueueListenerContainer> containers = new ArrayList<>();
        for (PgQueueApp app : apps) {
            containers.add(app.bean(QueueListenerContainerRegistry.class)
                .register(new ListenerEndpoint(worker, handle, shape.queue(), null, String.valueOf(CONCURRENCY),
                        "LEASE", String.valueOf(CONCURRENCY), null, null)));
        }
        containers.forEach(QueueListenerContainer::start);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
        // whole seconds once it runs, the same length whatever the pace: a fixed window at the rate, and no drain's
        // tail for the others
        admin.resume(shape.queue());
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1500));
        long before = worker.handled.get();
        long start = System.nanoTime();
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(seconds));
        double rate = (worker.handled.get() - before) * 1e9 / (System.nanoTime() - start);
        double ideal = shape.ideal(nodes, worker.meanMillis());
        String variant = shape.name() + ", " + nodes + ((nodes == 1) ? " node" : " nodes");
        System.out.println(String.format(Locale.ROOT, "   %s: %.1f jobs/s of an ideal %.1f (%.2f); at most %d at once",
                variant, rate, ideal, rate / ideal, worker.maxRunning.get()));
        return new Result("flow control", variant, rate, ideal, "jobs/s", true, String.format(Locale.ROOT,
                "%d workers per node, poll interval 1 s; handler %.2f ms; %d jobs preloaded, measured over %d s; at most %d ran at once "
                        + "(cap %s); ideal = %s", CONCURRENCY, worker.meanMillis(), jobs, seconds, worker.maxRunning.get(),
                (shape.cap() == Integer.MAX_VALUE) ? "none" : String.valueOf(shape.cap()),
                (shape.rate() > 0) ? "the rate (or less if the slots allow less)" : "min(cap, workers) / handler time"));
    }
}
