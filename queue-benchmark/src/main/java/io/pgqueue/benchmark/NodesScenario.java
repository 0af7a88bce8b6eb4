package io.pgqueue.benchmark;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.benchmark.BenchServer.Database;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.QueueListenerContainer;

/**
 * 1, 2, 4 and 8 applications, each its own JVM, on one database, draining a preloaded backlog of one queue
 * and of many queues (after an unmeasured backlog has warmed every JVM): the cluster's throughput, how many
 * jobs each claim took (SKIP LOCKED contention shows as smaller claims), where the CPU went per job (the nodes'
 * JVMs against the rest of the machine, the database chiefly: on a machine whose cores the database shares
 * with every node, more nodes can only divide the same CPU), and what the idle cluster costs in statements
 * per second (heartbeats, maintenance, idle polls).
 */
final class NodesScenario {

    static final String CHILD_FLAG = "--node-child";

    /** The points of the curves; {@code -Dbench.nodes=1,2} measures others. */
    static final int[] NODE_COUNTS = BenchSettings.counts(BenchSettings.NODES, "1,2,4,8");

    static final int MANY_QUEUES = 20;

    /** Per queue: the best LEASE setting for one queue; smaller for many, so a node runs 160 workers, not 1,280. */
    private static Scenarios.Setting setting(int queues) {
        return (queues == 1) ? new Scenarios.Setting(64, 50) : new Scenarios.Setting(8, 10);
    }

    private static final long IDLE_SECONDS = BenchSettings.idleSeconds();

    private static final int WARM_UP_JOBS_PER_NODE = 25_000;

    /** Clock ticks per second of /proc/stat (USER_HZ, 100 on Linux wherever it runs). */
    private static final long USER_HZ = 100;

    private NodesScenario() {
    }

    static List<Result> run(BenchServer server, int jobs) throws Exception {
        List<Result> results = new ArrayList<>();
        for (int queues : new int[] { 1, MANY_QUEUES }) {
            List<Measure> measures = new ArrayList<>();
            for (int nodes : NODE_COUNTS) {
                Measure measure = measure(server, nodes, queues, jobs);
                System.out.println("   " + measure);
                measures.add(measure);
            }
            Measure one = measures.get(0);
            String shape = (queues == 1) ? "one queue" : queues + " queues";
            String notes = "each node its own JVM, LEASE " + setting(queues) + " per queue, NOTIFY on; baseline = 1 node";
            for (Measure m : measures) {
                results.add(new Result("nodes", m.nodes() + " nodes, " + shape + ": drain " + jobs + " jobs",
                        m.drainRate(), one.drainRate(), "jobs/s", true, notes));
            }
            for (Measure m : measures) {
                results.add(new Result("nodes", m.nodes() + " nodes, " + shape + ": jobs per claim", m.jobsPerClaim(),
                        one.jobsPerClaim(), "jobs", true, notes + "; smaller claims = nodes skipping each other's rows"));
            }
            for (Measure m : measures) {
                results.add(new Result("nodes", m.nodes() + " nodes, " + shape + ": CPU µs per job, all JVMs",
                        m.jvmMicrosPerJob(), one.jvmMicrosPerJob(), "µs", false,
                        notes + "; process CPU time of the nodes during the measured drain"));
            }
            for (Measure m : measures) {
                results.add(new Result("nodes", m.nodes() + " nodes, " + shape + ": CPU µs per job, rest of the machine",
                        m.restMicrosPerJob(), one.restMicrosPerJob(), "µs", false, notes
                                + "; busy CPU of the machine (/proc/stat) minus the nodes': the database, chiefly"));
            }
            for (Measure m : measures) {
                results.add(new Result("nodes", m.nodes() + " nodes, " + shape + ": idle statements / s, cluster",
                        m.idleTps(), one.idleTps(), "calls/s", false, notes + "; heartbeats, maintenance, idle polls"));
            }
        }
        return results;
    }

    private static Measure measure(BenchServer server, int nodes, int queues, int jobs) throws Exception {
        try (Database database = server.createDatabase("nodes" + nodes + "x" + queues, 2);
                PgQueueApp admin = PgQueueApp.start(database, 2, Map.of("pgqueue.maintenance.enabled", "false"))) {
            QueueAdmin queueAdmin = admin.bean(QueueAdmin.class);
            for (int q = 0; q < queues; q++) {
                queueAdmin.pause(queue(q));
            }
            // a backlog drained unmeasured first, so that every JVM has compiled its hot path (each node
            // handles its share of the warm-up jobs, so more nodes need more of them)
            preload(database, queues, Math.max(jobs / 4, nodes * WARM_UP_JOBS_PER_NODE));
            List<Child> children = new ArrayList<>();
            try {
                for (int n = 0; n < nodes; n++) {
                    children.add(Child.start(database, server, queues));
                }
                for (Child child : children) {
                    child.await("READY");
                }
                for (int q = 0; q < queues; q++) {
                    queueAdmin.resume(queue(q));
                }
                awaitEmpty(database);
                for (int q = 0; q < queues; q++) {
                    queueAdmin.pause(queue(q));
                }
                preload(database, queues, jobs);
                long handled = 0;
                long claims = 0;
                long jvmCpu = 0;
                for (Child child : children) {
                    long[] report = child.report();
                    handled -= report[0];
                    claims -= report[2];
                    jvmCpu -= report[3];
                }
                long machineBusy = -machineBusyNanos();
                long start = System.nanoTime();
                for (int q = 0; q < queues; q++) {
                    queueAdmin.resume(queue(q));
                }
                awaitEmpty(database);
                double drainRate = jobs / ((System.nanoTime() - start) / 1e9);
                machineBusy += machineBusyNanos();
                for (Child child : children) {
                    long[] report = child.report();
                    handled += report[0];
                    claims += report[2];
                    jvmCpu += report[3];
                }
                if (handled != jobs) {
                    throw new IllegalStateException(handled + " jobs handled of " + jobs);
                }
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(3));
                long before = 0;
                for (Child child : children) {
                    before += child.report()[1];
                }
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(IDLE_SECONDS));
                long after = 0;
                for (Child child : children) {
                    after += child.report()[1];
                }
                return new Measure(nodes, queues, drainRate, (double) jobs / Math.max(1, claims),
                        (after - before) / (double) IDLE_SECONDS, jvmCpu / 1e3 / jobs,
                        (machineBusy < 0) ? Double.NaN : (machineBusy - jvmCpu) / 1e3 / jobs);
            }
            finally {
                children.forEach(Child::stop);
            }
        }
    }

    /**
     * CPU time the whole machine has spent busy (not idle or waiting for I/O), from {@code /proc/stat}, or a
     * large negative number where there is none (the CPU split is then not reported).
     */
    static long machineBusyNanos() {
        try {
            String[] fields = java.nio.file.Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < fields.length && i <= 7; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(fields[i]);
                }
            }
            return busy * (1_000_000_000L / USER_HZ);
        }
        catch (java.io.IOException | RuntimeException ex) {
            return Long.MIN_VALUE / 4;
        }
    }

    /** Ready jobs spread evenly over the queues (which hold none yet), with their counts. */
    private static void preload(Database database, int queues, int jobs) throws Exception {
        try (Connection connection = database.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO pgqueue.job (queue, state, payload) SELECT 'nodes-' || (g % " + queues
                    + "), 'ready', jsonb_build_object('n', g) FROM generate_series(1, " + jobs + ") AS g");
            statement.execute("INSERT INTO pgqueue.queue_counter_delta (queue, ready, enqueued) SELECT queue, count(*), "
                    + "count(*) FROM pgqueue.job WHERE state = 'ready' GROUP BY queue");
            statement.execute("VACUUM ANALYZE pgqueue.job");
        }
    }

    private static void awaitEmpty(Database database) throws Exception {
        try (Connection connection = database.pool.getConnection();
                PreparedStatement left = connection.prepareStatement(
                        "SELECT EXISTS (SELECT 1 FROM pgqueue.job WHERE state IN ('ready', 'running'))")) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (System.nanoTime() < deadline) {
                try (ResultSet rows = left.executeQuery()) {
                    rows.next();
                    if (!rows.getBoolean(1)) {
                        return;
                    }
                }
                LockSupport.parkNanos(2_000_000);
            }
            throw new IllegalStateException("The backlog was not drained in 10 minutes");
        }
    }

    private static String queue(int index) {
        return "nodes-" + index;
    }

    /**
     * The child JVM, one node: listens to the queues, prints {@code READY} once its containers run, then
     * answers each {@code REPORT} line on standard input with {@code REPORT <handled> <statements> <claims>}
     * until standard input closes.
     */
    static void child(String[] args) throws Exception {
        int queues = Integer.parseInt(args[4]);
        Scenarios.Setting setting = setting(queues);
        try (PgQueueApp app = PgQueueApp.start(args[1], args[2], args[3], (queues == 1) ? 8 : 16,
                Map.of("pgqueue.listener.notify", "true", StatementCounting.PROPERTY, "true"))) {
            Counter counter = new Counter();
            QueueListenerContainerRegistry registry = app.bean(QueueListenerContainerRegistry.class);
            Method handle = Counter.class.getDeclaredMethod("handle", JobContext.class);
            List<QueueListenerContainer> containers = new ArrayList<>();
            for (int q = 0; q < queues; q++) {
                containers.add(registry.register(new ListenerEndpoint(counter, handle, queue(q), null,
                        String.valueOf(setting.concurrency()), "LEASE", String.valueOf(setting.batch()), null, null)));
            }
            containers.forEach(QueueListenerContainer::start);
            StatementCounting statements = app.bean(StatementCounting.class);
            com.sun.management.OperatingSystemMXBean cpu = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean();
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("REPORT")) {
                    System.out.println("REPORT " + counter.handled.get() + " " + statements.statements.get() + " "
                            + statements.claims.get() + " " + cpu.getProcessCpuTime());
                    System.out.flush();
                }
            }
        }
    }

    /** The no-op handler of every queue of a node. */
    static final class Counter {

        final AtomicLong handled = new AtomicLong();

        void handle(JobContext job) {
            handled.incrementAndGet();
        }
    }

    /** A node's JVM, spoken to through its standard input and output. */
    private record Child(Process process, PrintWriter in, BlockingQueue<String> lines) {

        static Child start(Database database, BenchServer server, int queues) throws Exception {
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                    "-Xmx512m"));
            String classPath = System.getProperty("java.class.path");
            if (classPath.endsWith(".jar") && !classPath.contains(java.io.File.pathSeparator)) {
                command.addAll(List.of("-jar", Path.of(classPath).toAbsolutePath().toString()));
            }
            else {
                command.addAll(List.of("-cp", classPath, BenchmarkMain.class.getName()));
            }
            command.addAll(List.of(CHILD_FLAG, database.url, server.username(), server.password(),
                    String.valueOf(queues)));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        lines.add(line);
                    }
                }
                catch (java.io.IOException ex) {
                    // the child is gone: await() reports it
                }
            });
            reader.setDaemon(true);
            reader.start();
            return new Child(process, new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8), lines);
        }

        /** Waits for the line starting with {@code prefix}, passing over log lines. */
        String await(String prefix) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            List<String> seen = new ArrayList<>();
            while (System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line != null && line.startsWith(prefix)) {
                    return line;
                }
                if (line != null) {
                    seen.add(line);
                }
                if (line == null && !process.isAlive()) {
                    break;
                }
            }
            throw new IllegalStateException("A node did not answer " + prefix + ": " + String.join("\n", seen));
        }

        /** Handled jobs, statements, claims and process CPU nanoseconds of the node so far. */
        long[] report() throws InterruptedException {
            in.println("REPORT");
            String[] parts = await("REPORT ").split(" ");
            return new long[] { Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]),
                    Long.parseLong(parts[4]) };
        }

        void stop() {
            in.close();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
            catch (InterruptedException ex) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * One point of the curves.
     *
     * @param nodes applications (JVMs)
     * @param queues queues the backlog is spread over
     * @param drainRate jobs per second the cluster drained
     * @param jobsPerClaim jobs per claim statement, over all nodes
     * @param idleTps statements per second of the whole cluster while idle
     * @param jvmMicrosPerJob CPU time of all nodes per job drained
     * @param restMicrosPerJob CPU time of the rest of the machine (the database, chiefly) per job drained
     */
    record Measure(int nodes, int queues, double drainRate, double jobsPerClaim, double idleTps,
            double jvmMicrosPerJob, double restMicrosPerJob) {

        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%d nodes, %d queues: %.0f jobs/s, %.1f jobs per claim, "
                    + "%.1f idle calls/s, CPU per job %.1f µs in the nodes, %.1f µs elsewhere", nodes, queues, drainRate,
                    jobsPerClaim, idleTps, jvmMicrosPerJob, restMicrosPerJob);
        }
    }
}
