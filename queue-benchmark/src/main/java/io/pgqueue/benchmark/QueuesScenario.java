package io.pgqueue.benchmark;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;

/**
 * How pgqueue's cost grows with the number of queues one node listens to (1, 10, 100, 500; one LEASE
 * listener of concurrency 1 per queue, NOTIFY on, default poll interval): the statements per second the node
 * sends while every queue is idle, pickup latency of jobs sent by another application to random queues, and the
 * drain rate of a backlog spread over all queues. The baseline column is the same measure with one queue.
 */
final class QueuesScenario {

    /** The points of the curves; {@code -Dbench.queues=1,10} measures others. */
    static final int[] QUEUE_COUNTS = BenchSettings.counts(BenchSettings.QUEUES, "1,10,100,500");

    private static final long IDLE_SECONDS = BenchSettings.idleSeconds();

    private QueuesScenario() {
    }

    static List<Result> run(BenchServer server, int drainJobs, int pickupJobs) throws Exception {
        List<Measure> measures = new ArrayList<>();
        for (int queues : QUEUE_COUNTS) {
            measures.add(measure(server, queues, drainJobs, pickupJobs));
            System.out.println("   " + measures.get(measures.size() - 1));
        }
        Measure one = measures.get(0);
        List<Result> results = new ArrayList<>();
        String notes = "LEASE, concurrency 1 and batch 10 per queue, NOTIFY on, poll interval 1 s; baseline = 1 queue";
        for (Measure m : measures) {
            results.add(new Result("queues", m.queues() + " idle queues: statements / s of the node", m.idleTps(),
                    one.idleTps(), "calls/s", false, notes));
        }
        for (Measure m : measures) {
            results.add(new Result("queues", m.queues() + " queues: pickup p99, 1 job / 20 ms to a random queue",
                    m.pickupP99(), one.pickupP99(), "ms", false, notes + "; sent by another application"));
        }
        for (Measure m : measures) {
            results.add(new Result("queues", m.queues() + " queues: drain " + drainJobs + " jobs spread over them",
                    m.drainRate(), one.drainRate(), "jobs/s", true, notes));
        }
        return results;
    }

    private static Measure measure(BenchServer server, int queues, int drainJobs, int pickupJobs) throws Exception {
        try (BenchServer.Database database = server.createDatabase("queues" + queues, 4);
                PgQueueApp app = PgQueueApp.start(database, 16, Map.of(StatementCounting.PROPERTY, "true"));
                PgQueueApp publisher = PgQueueApp.start(database, 2, Map.of("pgqueue.maintenance.enabled", "false"))) {
            Listener listener = new Listener();
            QueueListenerContainerRegistry registry = app.bean(QueueListenerContainerRegistry.class);
            Method handle = Listener.class.getDeclaredMethod("handle", PgQueueApp.Tick.class);
            List<QueueListenerContainer> containers = new ArrayList<>();
            for (int q = 0; q < queues; q++) {
                containers.add(registry.register(
                        new ListenerEndpoint(listener, handle, queue(q), null, "1", "LEASE", "10", null, null)));
            }
            // a backlog spread over all queues, drained once every container runs
            QueueTemplate template = publisher.template();
            int perQueue = Math.max(1, drainJobs / queues);
            for (int q = 0; q < queues; q++) {
                template.sendBatch(queue(q), IntStream.range(0, perQueue).mapToObj((i) -> new PgQueueApp.Tick(0)).toList());
            }
            long total = (long) perQueue * queues;
            long start = System.nanoTime();
            containers.forEach(QueueListenerContainer::start);
            waitFor(listener.handled, total, 600);
            double drainRate = total / ((System.nanoTime() - start) / 1e9);

            // idle: every queue empty, nothing sent
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(3));
            AtomicLong statements = app.bean(StatementCounting.class).statements;
            long before = statements.get();
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(IDLE_SECONDS));
            double idleTps = (statements.get() - before) / (double) IDLE_SECONDS;

            // pickup: one job every 20 ms to a random queue, from the other application
            listener.timed = true;
            long handled = listener.handled.get();
            for (int i = 0; i < pickupJobs; i++) {
                template.send(queue(ThreadLocalRandom.current().nextInt(queues)), new PgQueueApp.Tick(System.nanoTime()));
                LockSupport.parkNanos(20_000_000);
            }
            waitFor(listener.handled, handled + pickupJobs, 30);
            return new Measure(queues, idleTps, listener.latencies.percentileMillis(99), drainRate);
        }
    }

    private static String queue(int index) {
        return "scale-" + index;
    }

    private static void waitFor(AtomicLong counter, long target, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (counter.get() < target && System.nanoTime() < deadline) {
            LockSupport.parkNanos(5_000_000);
        }
        if (counter.get() < target) {
            throw new IllegalStateException("only " + counter.get() + " of " + target + " jobs handled in " + seconds + " s");
        }
    }

    /** The handler of every queue: counts, and records latency once the pickup phase starts. */
    static final class Listener {

        final AtomicLong handled = new AtomicLong();

        final Latencies latencies = new Latencies(100_000);

        volatile boolean timed;

        void handle(PgQueueApp.Tick tick) {
            if (timed) {
                latencies.record(System.nanoTime() - tick.sentNanos());
            }
            handled.incrementAndGet();
        }
    }

    /**
     * One point of the curves.
     *
     * @param queues queues listened to
     * @param idleTps statements per second the node sends while idle
     * @param pickupP99 pickup latency p99 in milliseconds
     * @param drainRate jobs per second draining the spread backlog
     */
    record Measure(int queues, double idleTps, double pickupP99, double drainRate) {
    }
}
