package io.pgqueue.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.testsupport.EmbeddedPostgresServer;
import io.pgqueue.testsupport.RestartablePostgres;

/**
 * Queues over one PostgreSQL server, then over two ({@code pgqueue.databases}): the same application sends to
 * and drains two queues, on one server, or with the second queue on a second server. Both servers are
 * embedded, started by the scenario with the same settings (durable commits, {@code pg_stat_statements}),
 * on this machine's cores: the total cannot double here, so the scenario reports what each job costs (CPU of
 * the JVM and of each server, statements each server ran) and what that implies for servers on machines of
 * their own.
 */
final class DatabasesScenario {

    private static final String FIRST_QUEUE = "first";

    private static final String SECOND_QUEUE = "second";

    private static final int SEND_THREADS = 8;

    private static final int POOL = 24;

    private static final int CONCURRENCY = 32;

    private static final int BATCH = 50;

    private static final Map<String, String> SETTINGS = Map.of("fsync", "on", "synchronous_commit", "on",
            "max_connections", "200", "shared_preload_libraries", "pg_stat_statements");

    private DatabasesScenario() {
    }

    /** What one phase cost. */
    record Cost(double rate, double jvmMicros, double firstServerMicros, double secondServerMicros,
            double firstStatements, double secondStatements) {

        double serverMicros() {
            return firstServerMicros + secondServerMicros;
        }

        double statements() {
            return firstStatements + secondStatements;
        }
    }

    static List<Result> run(int jobs, int rounds) throws Exception {
        try (EmbeddedPostgresServer first = EmbeddedPostgresServer.start(SETTINGS, false);
                EmbeddedPostgresServer second = EmbeddedPostgresServer.start(SETTINGS, false)) {
            Server a = new Server(first);
            Server b = new Server(second);
            measure(a, b, false, Math.min(jobs, 2_000));
            List<Cost[]> one = new ArrayList<>();
            List<Cost[]> two = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                one.add(measure(a, b, false, jobs));
                two.add(measure(a, b, true, jobs));
            }
            List<Result> results = new ArrayList<>();
            results.add(result("enqueue", one, two, 0, jobs));
            results.add(result("drain", one, two, 1, jobs));
            results.add(outage(a, jobs, rounds));
            return results;
        }
    }

    /**
     * The default database's queue drained while the other database is up, then while it is down (its server
     * stopped, its listener failing and backing off), in alternating rounds; after each outage the stopped
     * server restarts and its queue's jobs must all be handled.
     */
    private static Result outage(Server a, int jobs, int rounds) throws Exception {
        String database = a.createDatabase();
        try (RestartablePostgres other = RestartablePostgres.start()) {
            try (PgQueueApp app = PgQueueApp.start(a.server.jdbcUrl(database), a.server.username(), a.server.password(),
                    POOL / 2, secondDatabase(other.jdbcUrl("postgres"), other.username(), other.password()))) {
                QueueTemplate template = app.template();
                Noop first = new Noop();
                Noop second = new Noop();
                QueueListenerContainerRegistry registry = app.bean(QueueListenerContainerRegistry.class);
                QueueListenerContainer firstContainer = first.listenTo(registry, FIRST_QUEUE);
                second.listenTo(registry, SECOND_QUEUE).start();
                List<Cost> up = new ArrayList<>();
                List<Cost> down = new ArrayList<>();
                long secondSent = 0;
                for (int round = 0; round <= rounds; round++) {
                    for (boolean stopped : new boolean[] { false, true }) {
                        template.sendBatch(SECOND_QUEUE, IntStream.range(0, 1_000).mapToObj((i) -> Map.of("n", i)).toList());
                        secondSent += 1_000;
                        if (stopped) {
                            other.stop();
                        }
                        Cost rate = drainFirst(a, template, firstContainer, first, jobs);
                        if (stopped) {
                            other.startServer();
                        }
                        if (round > 0) {
                            (stopped ? down : up).add(rate);
                        }
                    }
                    second.await(secondSent, Duration.ofMinutes(2), "jobs of the stopped database after its restart");
                }
                Cost upCost = median(up);
                Cost downCost = median(down);
                double whileUp = upCost.rate();
                double whileDown = downCost.rate();
                System.out.println(String.format(Locale.ROOT, "   outage: the default database's queue drains %.0f jobs/s "
                        + "while the other database is down, %.0f while it is up (%.2f); CPU per job: JVM %.0f vs %.0f us, "
                        + "its server %.0f vs %.0f us; the stopped database's %d jobs all handled after its restarts",
                        whileDown, whileUp, whileDown / whileUp, downCost.jvmMicros(), upCost.jvmMicros(),
                        downCost.firstServerMicros(), upCost.firstServerMicros(), secondSent));
                return new Result("databases", "drain of one database's queue while the other is down vs up", whileDown,
                        whileUp, "jobs/s", true, jobs + " jobs per round, median of " + rounds + " alternating rounds "
                                + "after a warm-up; the stopped server restarted after each outage and all " + secondSent
                                + " of its jobs handled; baseline column = while up");
            }
        }
        finally {
            a.drop(database);
        }
    }

    /** Sends a backlog to the first queue while its listener is stopped, then times its drain. */
    private static Cost drainFirst(Server a, QueueTemplate template, QueueListenerContainer container, Noop first,
            int jobs) throws Exception {
        for (int sent = 0; sent < jobs; sent += 1_000) {
            template.sendBatch(FIRST_QUEUE, IntStream.range(0, Math.min(1_000, jobs - sent))
                .mapToObj((i) -> Map.of("n", i))
                .toList());
        }
        long target = first.handled.get() + jobs;
        Cost cost = cost(a, null, jobs, () -> {
            container.start();
            first.await(target, Duration.ofMinutes(5), "jobs of the first queue");
        });
        container.stop();
        return cost;
    }

    private static Result result(String phase, List<Cost[]> one, List<Cost[]> two, int index, int jobs) {
        Cost single = median(one.stream().map((costs) -> costs[index]).toList());
        Cost spread = median(two.stream().map((costs) -> costs[index]).toList());
        int cores = Runtime.getRuntime().availableProcessors();
        // servers on cores of their own: a server saturates at its cores over what each job of the whole load
        // costs it; with two, each job costs a server only its share, and the busier one sets the ceiling
        double busier = Math.max(spread.firstServerMicros(), spread.secondServerMicros());
        double oneCeiling = cores * 1e6 / single.serverMicros();
        double twoCeiling = cores * 1e6 / busier;
        String costs = String.format(Locale.ROOT, "CPU per job: JVM %.0f us, server %.0f us (1 server) vs JVM %.0f us, "
                + "first %.0f us + second %.0f us (2 servers); statements per job %.2f vs %.2f + %.2f", single.jvmMicros(),
                single.serverMicros(), spread.jvmMicros(), spread.firstServerMicros(), spread.secondServerMicros(),
                single.statements(), spread.firstStatements(), spread.secondStatements());
        String implied = String.format(Locale.ROOT, "servers on %d cores each of their own: 1 server saturates at "
                + "%d x 1e6 / %.0f us = %.0f jobs/s, 2 servers at %d x 1e6 / %.0f us (the busier) = %.0f jobs/s (x%.2f), "
                + "with application nodes to spend %.0f us of JVM CPU per job", cores, cores, single.serverMicros(),
                oneCeiling, cores, busier, twoCeiling, twoCeiling / oneCeiling, spread.jvmMicros());
        System.out.println("   " + phase + ": 1 server " + Math.round(single.rate()) + " jobs/s, 2 servers "
                + Math.round(spread.rate()) + " jobs/s; " + costs);
        System.out.println("   " + phase + ": " + implied);
        return new Result("databases", phase + ", two queues on 2 servers vs 1 server", spread.rate(), single.rate(),
                "jobs/s", true, jobs + " jobs per round, half per queue; " + (phase.equals("enqueue") ? SEND_THREADS
                        + " threads, 1 per call" : "LEASE " + CONCURRENCY + "/" + BATCH + " per queue") + "; " + costs
                        + "; " + implied + "; baseline column = 1 server");
    }

    private static Cost median(List<Cost> costs) {
        List<Cost> sorted = costs.stream().sorted(java.util.Comparator.comparingDouble(Cost::rate)).toList();
        return sorted.get(sorted.size() / 2);
    }

    /** One round: a fresh database on each server, an application over one or both, its sends then its drain. */
    private static Cost[] measure(Server a, Server b, boolean spread, int jobs) throws Exception {
        String database = a.createDatabase();
        String other = spread ? b.createDatabase() : null;
        Map<String, Object> properties = new HashMap<>();
        properties.put("pgqueue.listener.notify", "true");
        if (spread) {
            properties.putAll(secondDatabase(b.server.jdbcUrl(other), b.server.username(), b.server.password()));
        }
        try (PgQueueApp app = PgQueueApp.start(a.server.jdbcUrl(database), a.server.username(), a.server.password(),
                spread ? POOL / 2 : POOL, properties)) {
            QueueTemplate template = app.template();
            int perThread = jobs / SEND_THREADS;
            Cost send = cost(a, spread ? b : null, (long) perThread * SEND_THREADS, () -> Scenarios.parallel(SEND_THREADS,
                    (t) -> {
                        String queue = (t % 2 == 0) ? FIRST_QUEUE : SECOND_QUEUE;
                        for (int i = 0; i < perThread; i++) {
                            template.send(queue, Map.of("n", i));
                        }
                    }));
            Noop handler = new Noop();
            QueueListenerContainerRegistry registry = app.bean(QueueListenerContainerRegistry.class);
            List<QueueListenerContainer> containers = new ArrayList<>();
            for (String queue : List.of(FIRST_QUEUE, SECOND_QUEUE)) {
                containers.add(handler.listenTo(registry, queue));
            }
            long total = (long) perThread * SEND_THREADS;
            Cost drain = cost(a, spread ? b : null, total, () -> {
                containers.forEach(QueueListenerContainer::start);
                handler.await(total, Duration.ofMinutes(10), "jobs of both queues");
            });
            containers.forEach(QueueListenerContainer::stop);
            return new Cost[] { send, drain };
        }
        finally {
            a.drop(database);
            if (other != null) {
                b.drop(other);
            }
        }
    }

    /** The rate of some work and what each job of it cost the JVM and each server. */
    private static Cost cost(Server a, Server b, long jobs, Scenarios.ThrowingRunnable work) throws Exception {
        a.resetStatements();
        if (b != null) {
            b.resetStatements();
        }
        long jvmBefore = jvmCpuNanos();
        long aBefore = a.cpuNanos();
        long bBefore = (b != null) ? b.cpuNanos() : 0;
        double rate = Scenarios.rate(jobs, work);
        double jvm = (jvmCpuNanos() - jvmBefore) / 1e3 / jobs;
        double first = (a.cpuNanos() - aBefore) / 1e3 / jobs;
        double second = (b != null) ? (b.cpuNanos() - bBefore) / 1e3 / jobs : 0;
        return new Cost(rate, jvm, first, second, a.statements() / (double) jobs,
                (b != null) ? b.statements() / (double) jobs : 0);
    }

    private static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    }

    /** The properties that put {@link #SECOND_QUEUE} in a second database. */
    private static Map<String, Object> secondDatabase(String url, String username, String password) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("pgqueue.databases.second.url", url);
        properties.put("pgqueue.databases.second.username", username);
        properties.put("pgqueue.databases.second.password", password);
        properties.put("pgqueue.databases.second.id-block", "1");
        properties.put("pgqueue.databases.second.maximum-pool-size", String.valueOf(POOL / 2));
        properties.put("pgqueue.databases.second.queues", SECOND_QUEUE);
        return properties;
    }

    /** Counts the jobs it is handed. */
    static final class Noop {

        final AtomicLong handled = new AtomicLong();

        void handle(JobContext job) {
            handled.incrementAndGet();
        }

        /** A LEASE container of the queue calling this handler, not started. */
        QueueListenerContainer listenTo(QueueListenerContainerRegistry registry, String queue)
                throws NoSuchMethodException {
            Method handle = Noop.class.getDeclaredMethod("handle", JobContext.class);
            return registry.register(new ListenerEndpoint(this, handle, queue, null, String.valueOf(CONCURRENCY),
                    "LEASE", String.valueOf(BATCH), null, null));
        }

        /** Waits until {@code target} jobs were handled in all; throws when they are not within the time given. */
        void await(long target, Duration within, String what) {
            long deadline = System.nanoTime() + within.toNanos();
            while (handled.get() < target && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000);
            }
            if (handled.get() < target) {
                throw new IllegalStateException("only " + handled.get() + " of " + target + " " + what + " handled");
            }
        }
    }

    /** One of the scenario's servers: its databases, its processes' CPU time and its statements. */
    private static final class Server {

        /** Linux's clock ticks per second, in which /proc gives CPU times. */
        private static final long TICKS = 100;

        final EmbeddedPostgresServer server;

        private final long postmaster;

        private int databases;

        Server(EmbeddedPostgresServer server) throws SQLException {
            this.server = server;
            try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
                statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                try (ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
                    rows.next();
                    this.postmaster = parentOf(rows.getLong(1));
                }
            }
        }

        private Connection connect(String database) throws SQLException {
            return DriverManager.getConnection(server.jdbcUrl(database), server.username(), server.password());
        }

        String createDatabase() throws SQLException {
            String name = "bench_databases_" + (++databases);
            execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            execute("CREATE DATABASE " + name);
            return name;
        }

        void drop(String name) throws SQLException {
            execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }

        void resetStatements() throws SQLException {
            execute("SELECT pg_stat_statements_reset()");
        }

        /** Statements the server ran since the reset, in every database, less this reading. */
        long statements() throws SQLException {
            try (Connection connection = connect("postgres"); Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements")) {
                rows.next();
                return rows.getLong(1);
            }
        }

        private void execute(String sql) throws SQLException {
            try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }

        /** CPU time of the postmaster and all its children (backends, writers, WAL), in nanoseconds. */
        long cpuNanos() throws IOException {
            long ticks = 0;
            try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
                for (Path process : processes.filter((path) -> path.getFileName().toString().matches("\\d+")).toList()) {
                    String[] fields = stat(process);
                    if (fields != null && (Long.parseLong(fields[0]) == postmaster || Long.parseLong(fields[1]) == postmaster)) {
                        ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                    }
                }
            }
            return ticks * (1_000_000_000L / TICKS);
        }

        private static long parentOf(long pid) throws SQLException {
            String[] fields = stat(Path.of("/proc", String.valueOf(pid)));
            if (fields == null) {
                throw new SQLException("Cannot read /proc/" + pid + "/stat: this scenario needs Linux and a local server");
            }
            return Long.parseLong(fields[1]);
        }

        /** From /proc/<pid>/stat: [pid, ppid, ... utime at 11, stime at 12], or null when it went away. */
        private static String[] stat(Path process) {
            try {
                String line = Files.readString(process.resolve("stat"));
                String pid = line.substring(0, line.indexOf(' '));
                String[] rest = line.substring(line.lastIndexOf(')') + 2).split(" ");
                // rest: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
                String[] fields = new String[13];
                fields[0] = pid;
                fields[1] = rest[1];
                fields[11] = rest[11];
                fields[12] = rest[12];
                return fields;
            }
            catch (IOException | RuntimeException ex) {
                return null;
            }
        }
    }
}
