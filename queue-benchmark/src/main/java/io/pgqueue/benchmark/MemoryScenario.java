package io.pgqueue.benchmark;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.pgqueue.benchmark.BenchServer.Database;

/**
 * Drains a large backlog in a child JVM limited to a 256 MB heap and reports the peak heap it used.
 */
final class MemoryScenario {

    static final String CHILD_FLAG = "--memory-child";

    private MemoryScenario() {
    }

    static List<Result> run(BenchServer server, int jobs) throws Exception {
        Scenarios.Setting setting = new Scenarios.Setting(64, 50);
        try (Database database = server.createDatabase("memory", 2)) {
            try (PgQueueApp migrate = PgQueueApp.start(database, 2, java.util.Map.of("pgqueue.maintenance.enabled",
                    "false"))) {
                // only to create the schema
            }
            Scenarios.preload(database, jobs, 0);
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                    "-Xmx256m"));
            String classPath = System.getProperty("java.class.path");
            if (classPath.endsWith(".jar") && !classPath.contains(java.io.File.pathSeparator)) {
                command.addAll(List.of("-jar", Path.of(classPath).toAbsolutePath().toString()));
            }
            else {
                command.addAll(List.of("-cp", classPath, BenchmarkMain.class.getName()));
            }
            command.addAll(List.of(CHILD_FLAG, database.url, server.username(), server.password(),
                    String.valueOf(jobs), String.valueOf(setting.concurrency()), String.valueOf(setting.batch())));
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(child.getInputStream().readAllBytes());
            boolean exited = child.waitFor(30, TimeUnit.MINUTES);
            String line = output.lines().filter((l) -> l.startsWith("MEMORY ")).findFirst().orElse(null);
            if (!exited || child.exitValue() != 0 || line == null) {
                System.err.println(output);
                return List.of(new Result("memory", jobs + " jobs under -Xmx256m", Double.NaN, Double.NaN, "MB", false,
                        "FAILED: exit " + (exited ? child.exitValue() : "timeout")));
            }
            String[] parts = line.split(" ");
            double peakMb = Double.parseDouble(parts[1]);
            double rate = Double.parseDouble(parts[2]);
            return List.of(
                    new Result("memory", jobs + " jobs drained under -Xmx256m: peak heap used", peakMb, Double.NaN,
                            "MB", false, "completed, no OutOfMemoryError; LEASE, " + setting),
                    new Result("memory", jobs + " jobs drained under -Xmx256m: throughput", rate, Double.NaN,
                            "jobs/s", true, "same run"));
        }
    }

    /** The child JVM: drains the jobs and prints {@code MEMORY <peak MB> <jobs/s>}. */
    static void child(String[] args) throws Exception {
        String url = args[1];
        int jobs = Integer.parseInt(args[4]);
        AtomicLong peak = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
                LockSupport.parkNanos(20_000_000);
            }
        });
        sampler.setDaemon(true);
        sampler.start();
        double rate;
        try (PgQueueApp app = PgQueueApp.start(url, args[2], args[3], Integer.parseInt(args[5]) + 4,
                Scenarios.drainProperties("LEASE", new Scenarios.Setting(Integer.parseInt(args[5]),
                        Integer.parseInt(args[6])), true, true))) {
            PgQueueApp.NoopListener listener = app.listener();
            rate = Scenarios.rate(jobs, () -> {
                app.startListeners();
                while (listener.handled.get() < jobs) {
                    LockSupport.parkNanos(10_000_000);
                }
            });
        }
        try (Connection connection = DriverManager.getConnection(url, args[2], args[3]);
                Statement statement = connection.createStatement();
                ResultSet left = statement.executeQuery("SELECT count(*) FROM pgqueue.job WHERE state <> 'dead'")) {
            left.next();
            if (left.getLong(1) != 0) {
                throw new IllegalStateException(left.getLong(1) + " jobs left after the drain");
            }
        }
        sampler.interrupt();
        System.out.println("MEMORY " + String.format(java.util.Locale.ROOT, "%.1f", peak.get() / 1048576.0) + " "
                + String.format(java.util.Locale.ROOT, "%.0f", rate));
    }
}
