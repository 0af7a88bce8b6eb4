package io.pgqueue.reliability;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.pgqueue.QueueTemplate;
import io.pgqueue.reliability.CrashWorker.Work;
import io.pgqueue.testsupport.EmbeddedPostgresServer;
import io.pgqueue.testsupport.PostgresServer;
import io.pgqueue.testsupport.TestPostgres;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The opt-in load soak: producers and worker JVMs run together for a while, a random worker is killed with
 * SIGKILL and replaced periodically, and every minute the jobs processed, lost, duplicated, the p99 latency
 * and the table size are printed.
 * <p>
 * {@code java -jar queue-reliability/target/queue-soak.jar --duration 10m --workers 3 --rate 500 --kill-every 30s}
 * ({@code PGQUEUE_SOAK_JDBC_URL} for a server of yours; an embedded one otherwise).
 */
public final class SoakMain {

    private SoakMain() {
    }

    public static void main(String[] args) throws Exception {
        List<String> arguments = Arrays.asList(args);
        Duration duration = duration(option(arguments, "--duration", "10m"));
        int workers = Integer.parseInt(option(arguments, "--workers", "3"));
        int rate = Integer.parseInt(option(arguments, "--rate", "500"));
        Duration killEvery = duration(option(arguments, "--kill-every", "30s"));
        String url = System.getenv("PGQUEUE_SOAK_JDBC_URL");
        PostgresServer server = (url != null && !url.isBlank())
                ? TestPostgres.external(url, System.getenv("PGQUEUE_SOAK_USERNAME"), System.getenv("PGQUEUE_SOAK_PASSWORD"))
                : EmbeddedPostgresServer.start(Map.of("max_connections", "200"));
        String database = "soak_" + ProcessHandle.current().pid();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl("postgres"), server.username(),
                server.password()); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + database);
        }
        String jdbcUrl = server.jdbcUrl(database);
        System.out.printf("Soak: %s, %d workers, %d jobs/s, a SIGKILL every %s, on %s%n", duration, workers, rate,
                killEvery, jdbcUrl);
        try (ConfigurableApplicationContext publisher = new SpringApplicationBuilder(Publisher.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .logStartupInfo(false)
            .properties(Map.of("spring.datasource.url", jdbcUrl, "spring.datasource.username", server.username(),
                    "spring.datasource.password", server.password(), "logging.level.root", "WARN",
                    "pgqueue.scheduler.enabled", "false"))
            .run()) {
            JdbcTemplate jdbc = publisher.getBean(JdbcTemplate.class);
            jdbc.execute(CrashWorker.EFFECT_TABLE);
            run(publisher.getBean(QueueTemplate.class), jdbc, jdbcUrl, server, duration, workers, rate, killEvery);
        }
        finally {
            server.close();
        }
        System.exit(0);
    }

    private static void run(QueueTemplate template, JdbcTemplate jdbc, String jdbcUrl, PostgresServer server,
            Duration duration, int workerCount, int rate, Duration killEvery) throws Exception {
        List<WorkerProcess> workers = new ArrayList<>();
        for (int i = 0; i < workerCount; i++) {
            workers.add(WorkerProcess.start(jdbcUrl, server.username(), server.password()));
        }
        AtomicLong sent = new AtomicLong();
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> {
            long interval = 1_000_000_000L / rate;
            long next = System.nanoTime();
            while (producing.get()) {
                LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
                long n = sent.get();
                try {
                    template.send((n % 2 == 0) ? "crash-lease" : "crash-tx", new Work((int) n));
                    sent.incrementAndGet();
                }
                catch (RuntimeException ex) {
                    System.out.println("send failed: " + ex.getMessage());
                }
                next += interval;
            }
        }, "soak-producer");
        producer.start();
        Random random = new Random();
        long start = System.nanoTime();
        long nextKill = start + killEvery.toNanos();
        long nextReport = start + Duration.ofMinutes(1).toNanos();
        int kills = 0;
        System.out.println("minute      sent  processed  duplicated  p99_ms  job_table_kB");
        while (System.nanoTime() - start < duration.toNanos()) {
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
            if (System.nanoTime() >= nextKill) {
                WorkerProcess victim = workers.remove(random.nextInt(workers.size()));
                victim.kill();
                kills++;
                workers.add(WorkerProcess.start(jdbcUrl, server.username(), server.password()));
                nextKill += killEvery.toNanos();
            }
            if (System.nanoTime() >= nextReport) {
                report(jdbc, (nextReport - start) / 60_000_000_000L, sent.get(), "1 minute");
                nextReport += Duration.ofMinutes(1).toNanos();
            }
        }
        producing.set(false);
        producer.join();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline && remaining(jdbc) > 0) {
            LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
        }
        for (WorkerProcess worker : workers) {
            worker.stopGracefully();
        }
        long processed = jdbc.queryForObject("SELECT count(DISTINCT (queue, job_id)) FROM effect", Long.class);
        long txDuplicates = jdbc.queryForObject(
                "SELECT count(*) - count(DISTINCT job_id) FROM effect WHERE queue = 'crash-tx'", Long.class);
        long leaseDuplicates = jdbc.queryForObject(
                "SELECT count(*) - count(DISTINCT job_id) FROM effect WHERE queue = 'crash-lease'", Long.class);
        Double p99 = jdbc.queryForObject(
                "SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) FROM effect", Double.class);
        System.out.printf(Locale.ROOT,
                "Done: %d sent, %d processed, %d lost, %d TRANSACTIONAL duplicates, %d LEASE duplicates, "
                        + "p99 enqueue-to-handler %.1f ms, %d SIGKILLs, %d jobs left%n",
                sent.get(), processed, sent.get() - processed, txDuplicates, leaseDuplicates,
                (p99 != null) ? p99 : Double.NaN, kills, remaining(jdbc));
    }

    private static void report(JdbcTemplate jdbc, long minute, long sent, String window) {
        Map<String, Object> row = jdbc.queryForMap("SELECT count(DISTINCT (queue, job_id)) AS processed, "
                + "count(*) - count(DISTINCT (queue, job_id)) AS duplicated, "
                + "(SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) FROM effect "
                + " WHERE at > now() - interval '" + window + "') AS p99, "
                + "pg_total_relation_size('pgqueue.job') / 1024 AS job_kb FROM effect");
        System.out.printf(Locale.ROOT, "%6d %9d %10d %11d %7.1f %13d%n", minute, sent, row.get("processed"),
                row.get("duplicated"), (row.get("p99") != null) ? ((Number) row.get("p99")).doubleValue() : Double.NaN,
                row.get("job_kb"));
    }

    private static long remaining(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE state <> 'dead'", Long.class);
    }

    private static Duration duration(String value) {
        return Duration.parse("PT" + value.toUpperCase(Locale.ROOT));
    }

    private static String option(List<String> arguments, String name, String fallback) {
        int index = arguments.indexOf(name);
        return (index >= 0 && index + 1 < arguments.size()) ? arguments.get(index + 1) : fallback;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Publisher {
    }
}
