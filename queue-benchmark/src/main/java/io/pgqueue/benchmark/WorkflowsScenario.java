package io.pgqueue.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.benchmark.BenchServer.Database;
import io.pgqueue.listener.JobContext;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import io.pgqueue.workflow.WorkflowSubmission;

/**
 * Workflows against plain jobs in the same run: a fan-out 1→N, a fan-in N→1 and a 20-layer graph whose nodes
 * each have 3 parents, drained by no-op listeners, as a ratio of a plain drain of N no-op jobs; a chain's
 * per-step latency; the latency from a parent's handler returning in one application to its dependant's
 * handler starting in another; and a workflow of many nodes: its submit time and the time to read its status.
 */
final class WorkflowsScenario {

    private static final int LAYERS = 20;

    private static final int LATENCY_SAMPLES = 300;

    private WorkflowsScenario() {
    }

    /** Counts jobs and records, per payload, when its handler started and returned. */
    static class Nodes {

        static final AtomicLong handled = new AtomicLong();

        static final Map<Long, Long> started = new ConcurrentHashMap<>();

        static final AtomicReference<CountDownLatch> done = new AtomicReference<>(new CountDownLatch(0));

        static volatile long parentReturned;

        static final Latencies release = new Latencies(10_000);

        @QueueListener(queue = "wf-bench-lease", concurrency = "${bench.concurrency:8}", batchSize = "${bench.batch:10}")
        void lease(long n) {
            handled.incrementAndGet();
            done.get().countDown();
        }

        @QueueListener(queue = "wf-bench-tx", mode = "TRANSACTIONAL", concurrency = "${bench.concurrency:8}",
                batchSize = "1")
        void transactional(long n) {
            handled.incrementAndGet();
            done.get().countDown();
        }

        @QueueListener(queue = "wf-bench-chain", concurrency = "2")
        void chain(long n) {
            started.put(n, System.nanoTime());
            done.get().countDown();
        }
    }

    /** The parent of the cross-application latency probe (runs in application A). */
    static class Parent {

        @QueueListener(queue = "wf-bench-parent", concurrency = "1")
        void parent(long n) {
            Nodes.parentReturned = System.nanoTime();
        }
    }

    /** The child of the probe (runs in application B). */
    static class Child {

        @QueueListener(queue = "wf-bench-child", concurrency = "1")
        void child(long n) {
            Nodes.release.record(System.nanoTime() - Nodes.parentReturned);
            Nodes.done.get().countDown();
        }
    }

    static List<Result> run(BenchServer server, int jobs, int chain, int bigWorkflow) throws Exception {
        List<Result> results = new ArrayList<>();
        try (Database database = server.createDatabase("workflows", 12);
                PgQueueApp app = PgQueueApp.start(database, 12, Map.of("bench.workflow-nodes", "true"))) {
            WorkflowOperations workflows = app.bean(WorkflowOperations.class);
            QueueTemplate template = app.template();
            app.startListeners();
            for (String queue : List.of("wf-bench-lease", "wf-bench-tx")) {
                String mode = queue.endsWith("lease") ? "LEASE" : "TRANSACTIONAL";
                // warm-up: the first drain of a JVM measures its compiler
                drain(jobs / 10 + 1, () -> workflows.submit(fanOut(queue, jobs / 10)));
                drain(jobs / 10 + 1, () -> workflows.submit(fanIn(queue, jobs / 10)));
                Callable<Double> plain = () -> drain(jobs, () -> template.sendBatch(queue, range(jobs)));
                String notes = jobs + " no-op jobs; baseline: a plain drain of " + jobs + " jobs";
                Map<String, Callable<Double>> shapes = new LinkedHashMap<>();
                shapes.put("fan-out 1->" + jobs, () -> drain(jobs + 1, () -> workflows.submit(fanOut(queue, jobs))));
                shapes.put("fan-in " + jobs + "->1", () -> drain(jobs + 1, () -> workflows.submit(fanIn(queue, jobs))));
                shapes.put(LAYERS + " layers, 3 parents each", () -> drain(layered(queue, jobs).nodes().size(),
                        () -> workflows.submit(layered(queue, jobs))));
                for (Map.Entry<String, Callable<Double>> shape : shapes.entrySet()) {
                    Scenarios.Pair measured = Scenarios.interleaved(shape.getValue(), plain, jobs);
                    results.add(new Result("workflows " + mode, shape.getKey(), measured.pgqueue(), measured.baseline(),
                            "jobs/s", true, notes + "; " + measured.method()));
                    results.addAll(measured.cpuRows("workflows " + mode, shape.getKey() + ": workflow vs plain",
                            "drained"));
                }
            }
            if (Boolean.getBoolean("bench.workflows.shapes-only")) {
                // the drains alone: before and after a change of the cascades, run one after the other
                return results;
            }
            results.addAll(chain(workflows, chain));
            results.addAll(bigWorkflow(workflows, app.bean(QueueAdmin.class), bigWorkflow));
        }
        results.addAll(acrossApplications(server));
        return results;
    }

    /** Jobs per second from starting the work until the listeners handled {@code count} jobs. */
    private static double drain(int count, Runnable work) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(count);
        Nodes.done.set(done);
        MachineCpu.Spent cpu = MachineCpu.now();
        long start = System.nanoTime();
        work.run();
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Workflow drain did not finish: " + done.getCount() + " left");
        }
        double perSecond = count / ((System.nanoTime() - start) / 1e9);
        MachineCpu.since(cpu);
        return perSecond;
    }

    private static List<Long> range(int count) {
        List<Long> payloads = new ArrayList<>(count);
        for (long i = 0; i < count; i++) {
            payloads.add(i);
        }
        return payloads;
    }

    private static Workflow fanOut(String queue, int width) {
        Workflow.Builder builder = Workflow.builder("fan-out").node(WorkflowNode.of("split", queue, -1L));
        for (long i = 0; i < width; i++) {
            builder.node(WorkflowNode.of("c" + i, queue, i).after("split"));
        }
        return builder.build();
    }

    private static Workflow fanIn(String queue, int width) {
        Workflow.Builder builder = Workflow.builder("fan-in");
        List<String> parents = new ArrayList<>(width);
        for (long i = 0; i < width; i++) {
            builder.node(WorkflowNode.of("c" + i, queue, i));
            parents.add("c" + i);
        }
        return builder.node(WorkflowNode.of("merge", queue, -1L).after(parents)).build();
    }

    /** {@value #LAYERS} layers; each node after the node of the same index and its two neighbours above. */
    private static Workflow layered(String queue, int jobs) {
        int width = Math.max(3, jobs / LAYERS);
        Workflow.Builder builder = Workflow.builder("layered");
        for (int layer = 0; layer < LAYERS; layer++) {
            for (int i = 0; i < width; i++) {
                WorkflowNode node = WorkflowNode.of(layer + "-" + i, queue, (long) i);
                if (layer > 0) {
                    node = node.after((layer - 1) + "-" + i, (layer - 1) + "-" + ((i + 1) % width),
                            (layer - 1) + "-" + ((i + width - 1) % width));
                }
                builder.node(node);
            }
        }
        return builder.build();
    }

    /** A chain: the time between one node's handler starting and the next one's, per step. */
    private static List<Result> chain(WorkflowOperations workflows, int length) throws InterruptedException {
        Nodes.started.clear();
        CountDownLatch done = new CountDownLatch(length);
        Nodes.done.set(done);
        Workflow.Builder builder = Workflow.builder("chain");
        for (long i = 0; i < length; i++) {
            WorkflowNode node = WorkflowNode.of("s" + i, "wf-bench-chain", i);
            builder.node((i == 0) ? node : node.after("s" + (i - 1)));
        }
        long start = System.nanoTime();
        workflows.submit(builder.build());
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Chain did not finish");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Latencies steps = new Latencies(length);
        for (long i = 1; i < length; i++) {
            steps.record(Nodes.started.get(i) - Nodes.started.get(i - 1));
        }
        String notes = "a chain of " + length + " LEASE no-op nodes, one running at a time; " + String.format("%.1f",
                seconds) + " s in all";
        return List.of(new Result("workflows chain", "step p50", steps.percentileMillis(50), Double.NaN, "ms", false, notes),
                new Result("workflows chain", "step p99", steps.percentileMillis(99), Double.NaN, "ms", false, notes));
    }

    /** A workflow of many nodes (no listener on its queue): submit time, then the time to read its status. */
    private static List<Result> bigWorkflow(WorkflowOperations workflows, QueueAdmin admin, int nodes) {
        Workflow.Builder builder = Workflow.builder("big");
        for (long i = 0; i < nodes; i++) {
            WorkflowNode node = WorkflowNode.of("n" + i, "wf-bench-idle", i);
            builder.node((i == 0) ? node : node.after("n0"));
        }
        Workflow big = builder.build();
        long start = System.nanoTime();
        WorkflowSubmission submitted = workflows.submit(big);
        double submitSeconds = (System.nanoTime() - start) / 1e9;
        Latencies reads = new Latencies(200);
        for (int i = 0; i < 200; i++) {
            long read = System.nanoTime();
            if (admin.workflow(submitted.id()).orElseThrow().counts().total() != nodes) {
                throw new IllegalStateException("Workflow counts do not add up to its nodes");
            }
            reads.record(System.nanoTime() - read);
        }
        String notes = String.format("%,d nodes, one root and every other node after it", nodes);
        return List.of(new Result("workflows big", "submit (s)", submitSeconds, Double.NaN, "s", false, notes),
                new Result("workflows big", "status read p50", reads.percentileMillis(50), Double.NaN, "ms", false, notes),
                new Result("workflows big", "status read p99", reads.percentileMillis(99), Double.NaN, "ms", false, notes));
    }

    /**
     * Application A runs the parent, application B (its own pool, node and LISTEN connection) the child: from
     * the parent's handler returning to the child's starting, one workflow at a time.
     */
    private static List<Result> acrossApplications(BenchServer server) throws Exception {
        try (Database database = server.createDatabase("workflows_apps", 4);
                PgQueueApp a = PgQueueApp.start(database, 4, Map.of("bench.workflow-parent", "true"));
                PgQueueApp b = PgQueueApp.start(database, 4, Map.of("bench.workflow-child", "true"))) {
            a.startListeners();
            b.startListeners();
            WorkflowOperations workflows = a.bean(WorkflowOperations.class);
            for (int i = 0; i < LATENCY_SAMPLES + 20; i++) {
                if (i == 20) {
                    Nodes.release.clear();
                }
                CountDownLatch done = new CountDownLatch(1);
                Nodes.done.set(done);
                workflows.submit(Workflow.builder("probe")
                    .node(WorkflowNode.of("parent", "wf-bench-parent", (long) i))
                    .node(WorkflowNode.of("child", "wf-bench-child", (long) i).after("parent"))
                    .build());
                if (!done.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("The probe's child did not run");
                }
                Thread.sleep(20);
            }
            String notes = LATENCY_SAMPLES + " parent->child workflows, the parent in one application, the child in "
                    + "another; from the parent's handler returning (its acknowledgement batched) to the child's start";
            return List.of(
                    new Result("workflows release", "across applications p50", Nodes.release.percentileMillis(50),
                            Double.NaN, "ms", false, notes),
                    new Result("workflows release", "across applications p99", Nodes.release.percentileMillis(99),
                            Double.NaN, "ms", false, notes));
        }
    }
}
