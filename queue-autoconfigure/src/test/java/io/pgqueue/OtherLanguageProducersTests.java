package io.pgqueue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.support.RealTracing;
import io.pgqueue.testsupport.RealComponents;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The producers of {@code examples/} (docs/other-languages.md) as they are: a Python service (psycopg 3) and a Node
 * service (node-postgres) each place orders and enqueue their confirmations through {@code pgqueue.send()} in one
 * transaction; a Java {@code @QueueListener} of another application receives every one once, typed, with the
 * producer's trace continued, and picks them up as fast as a Java application's sends (printed side by side).
 */
class OtherLanguageProducersTests {

    private static final TestDatabase database = TestPostgres.createDatabase(OtherLanguageProducersTests.class);

    private static final Path EXAMPLES = Path.of(System.getProperty("user.dir")).getParent().resolve("examples");

    private static final int ORDERS = 40;

    private static final Pattern SENT = Pattern
        .compile("sent order=(\\d+) job=(\\d+) trace=([0-9a-f]{32}) committed_epoch_ns=(\\d+)");

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    /** What the Java service expects, as docs/other-languages.md describes the payload. */
    record OrderPlaced(long orderId, long totalCents) {
    }

    /** A line a producer printed once its transaction committed. */
    record Sent(long orderId, long jobId, String traceId, long committedEpochNanos) {
    }

    /** A confirmation as the Java listener received it. */
    record Received(OrderPlaced order, long jobId, int attempt, String traceId, long startedEpochNanos) {
    }

    static class Confirmations {

        final Map<Long, Received> byOrder = new ConcurrentHashMap<>();

        final List<Long> duplicates = Collections.synchronizedList(new ArrayList<>());

        private final RealTracing tracing;

        Confirmations(RealTracing tracing) {
            this.tracing = tracing;
        }

        @QueueListener(queue = "order-confirmations")
        void confirm(OrderPlaced order, JobContext job) {
            long started = epochNanos(Instant.now());
            Span span = tracing.tracer.currentSpan();
            String traceId = (span != null) ? span.context().traceId() : "none";
            if (byOrder.putIfAbsent(order.orderId(), new Received(order, job.id(), job.attempt(), traceId, started)) != null) {
                duplicates.add(order.orderId());
            }
        }
    }

    @BeforeAll
    static void createOrderTable() {
        new JdbcTemplate(database.dataSource())
            .execute("CREATE TABLE shop_order (id bigint PRIMARY KEY, total_cents bigint NOT NULL)");
    }

    @Test
    void pythonAndNodeProducersAreConsumedByAJavaListenerAsFastAsAJavaSend() throws Exception {
        List<String> python = pythonWithPsycopg();
        List<String> node = nodeWithPg();
        RealTracing tracing = new RealTracing();
        Confirmations confirmations = new Confirmations(tracing);
        listening().withBean(ObservationRegistry.class, () -> tracing.registry)
            .withBean(Confirmations.class, () -> confirmations)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                await().atMost(Duration.ofSeconds(10))
                    .until(context.getBean(io.pgqueue.internal.wakeup.Wakeups.class)::isListening);

                List<Sent> fromPython = run(python, 1);
                List<Sent> fromNode = run(node, 1001);
                List<Sent> fromJava = sendFromJava(2001);

                for (List<Sent> sent : List.of(fromPython, fromNode, fromJava)) {
                    assertThat(sent).hasSize(ORDERS);
                    await().atMost(Duration.ofSeconds(30))
                        .until(() -> sent.stream().allMatch((s) -> confirmations.byOrder.containsKey(s.orderId())));
                }
                for (List<Sent> sent : List.of(fromPython, fromNode)) {
                    for (Sent s : sent) {
                        Received received = confirmations.byOrder.get(s.orderId());
                        assertThat(received.order()).isEqualTo(new OrderPlaced(s.orderId(), 1000 + s.orderId()));
                        assertThat(received.jobId()).isEqualTo(s.jobId());
                        assertThat(received.attempt()).isOne();
                        assertThat(received.traceId()).as("the producer's trace, continued").isEqualTo(s.traceId());
                    }
                }
                assertThat(confirmations.duplicates).isEmpty();
                assertThat(jdbc.queryForObject("SELECT count(*) FROM shop_order", Long.class)).isEqualTo(2L * ORDERS);
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class) == 0);

                List<Duration> python99 = pickups(fromPython, confirmations);
                List<Duration> node99 = pickups(fromNode, confirmations);
                List<Duration> java99 = pickups(fromJava, confirmations);
                System.out.printf("pickup by a Java listener of another application (%d sends each, commit to handler"
                        + " start): Python p50 %s p99 %s; Node p50 %s p99 %s; Java p50 %s p99 %s%n", ORDERS,
                        percentile(python99, 50), percentile(python99, 99), percentile(node99, 50),
                        percentile(node99, 99), percentile(java99, 50), percentile(java99, 99));
                // the listener polls every 30 s: each of these pickups was the producer's NOTIFY's work
                for (List<Duration> pickups : List.of(python99, node99, java99)) {
                    assertThat(percentile(pickups, 100)).isLessThan(Duration.ofSeconds(5));
                }
            });
    }

    private ApplicationContextRunner listening() {
        return QueueContextRunners.on(database).withPropertyValues("pgqueue.listener.poll-interval=30s",
                "pgqueue.listener.observation-enabled=true", "pgqueue.maintenance.enabled=false",
                "pgqueue.scheduler.enabled=false");
    }

    /** A second Java application sends the same orders' jobs, paced as the scripts pace theirs. */
    private List<Sent> sendFromJava(long firstOrder) {
        List<Sent> sent = new ArrayList<>();
        QueueContextRunners.on(database).withPropertyValues("pgqueue.listener.auto-startup=false",
                "pgqueue.maintenance.enabled=false", "pgqueue.scheduler.enabled=false").run((publisher) -> {
                    QueueTemplate template = publisher.getBean(QueueTemplate.class);
                    for (long order = firstOrder; order < firstOrder + ORDERS; order++) {
                        long jobId = template.send("order-confirmations", new OrderPlaced(order, 1000 + order));
                        sent.add(new Sent(order, jobId, "", epochNanos(Instant.now())));
                        // paced like the scripts (20 ms apart): not a wait for anything
                        TimeUnit.MILLISECONDS.sleep(20);
                    }
                });
        return sent;
    }

    /** Runs a producer to its end and returns what it printed it sent. */
    private List<Sent> run(List<String> command, long firstOrder) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(command);
        full.add(Integer.toString(ORDERS));
        full.add(Long.toString(firstOrder));
        ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true);
        builder.environment().put("PGQUEUE_DATABASE_URL", libpqUrl(database));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("%s printed:%n%s", command, output).isZero();
        List<Sent> sent = new ArrayList<>();
        Matcher line = SENT.matcher(output);
        while (line.find()) {
            sent.add(new Sent(Long.parseLong(line.group(1)), Long.parseLong(line.group(2)), line.group(3),
                    Long.parseLong(line.group(4))));
        }
        return sent;
    }

    private static List<Duration> pickups(List<Sent> sent, Confirmations confirmations) {
        return sent.stream()
            .map((s) -> Duration.ofNanos(confirmations.byOrder.get(s.orderId()).startedEpochNanos() - s.committedEpochNanos()))
            .toList();
    }

    /** The test database as a libpq connection URI, as other languages' drivers take it. */
    static String libpqUrl(TestDatabase database) {
        String rest = database.jdbcUrl().substring("jdbc:postgresql://".length());
        int parameters = rest.indexOf('?');
        String hostAndDatabase = (parameters < 0) ? rest : rest.substring(0, parameters);
        String password = database.password().isEmpty() ? "" : ":" + database.password();
        return "postgresql://" + database.username() + password + "@" + hostAndDatabase;
    }

    /** Python 3 with psycopg 3: Debian's python3-psycopg is for /usr/bin/python3. */
    private static List<String> pythonWithPsycopg() throws Exception {
        for (String python : List.of("/usr/bin/python3", "python3")) {
            try {
                Process check = new ProcessBuilder(python, "-c", "import psycopg").redirectErrorStream(true).start();
                check.getInputStream().readAllBytes();
                if (check.waitFor(30, TimeUnit.SECONDS) && check.exitValue() == 0) {
                    return List.of(python, EXAMPLES.resolve("python/place_orders.py").toString());
                }
            }
            catch (IOException notThere) {
                // try the next one
            }
        }
        return missing("Python 3 with psycopg 3 (Debian package 'python3-psycopg')");
    }

    /** Node with node-postgres: the example is copied under target/ and its locked dependencies installed there. */
    private static List<String> nodeWithPg() throws Exception {
        Path node = RealComponents.executable("node", "nodejs", "/usr/bin/node");
        Path copy = Path.of("target", "examples-node");
        Files.createDirectories(copy);
        for (String file : List.of("package.json", "package-lock.json", "place-orders.mjs")) {
            Files.copy(EXAMPLES.resolve("node").resolve(file), copy.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.isDirectory(copy.resolve("node_modules/pg"))) {
            Path npm = RealComponents.executable("npm", "npm", "/usr/bin/npm");
            Process install = new ProcessBuilder(npm.toString(), "ci", "--no-audit", "--no-fund")
                .directory(copy.toFile()).redirectErrorStream(true).start();
            String output = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!install.waitFor(180, TimeUnit.SECONDS) || install.exitValue() != 0) {
                return missing("node-postgres from the npm registry (npm ci failed: " + output.strip() + ")");
            }
        }
        return List.of(node.toString(), copy.resolve("place-orders.mjs").toAbsolutePath().toString());
    }

    private static List<String> missing(String component) {
        if (RealComponents.required()) {
            throw new IllegalStateException(component + " is missing, and " + RealComponents.REQUIRED_VARIABLE
                    + "=true requires it");
        }
        Assumptions.abort(component + " is missing: test skipped; .ci/run installs it");
        throw new AssertionError("unreachable");
    }

    private static long epochNanos(Instant instant) {
        return TimeUnit.SECONDS.toNanos(instant.getEpochSecond()) + instant.getNano();
    }

    private static Duration percentile(List<Duration> values, int percentile) {
        List<Duration> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
