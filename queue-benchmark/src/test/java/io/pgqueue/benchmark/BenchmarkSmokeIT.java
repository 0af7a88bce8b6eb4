package io.pgqueue.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every scenario of the benchmark jar runs through in its smoke form ({@code --smoke}: smallest sizes, one
 * round) and prints its result rows. This asserts that the benchmark runs, never how fast: the numbers of a
 * smoke run mean nothing. Of the scenarios that only run when named, {@code workflows}, {@code batches}, {@code fairness},
 * {@code virtual-threads}, {@code databases}, {@code flow-control} and {@code durable} are named here; the
 * others ({@code churn}, the long-transaction and history ones) are left out.
 */
class BenchmarkSmokeIT {

    private static final List<String> SCENARIOS = List.of("enqueue", "drain", "steady", "pickup", "backlog", "metrics",
            "memory", "peer", "broker", "queues", "payloads", "nodes", "work", "workflows", "batches",
            "fairness", "virtual-threads", "databases", "flow-control", "durable");

    @Test
    void everyScenarioRunsAndPrintsItsRows() throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("benchmark.jar"));
        Path out = jar.resolveSibling("benchmark-smoke");
        Path log = out.resolve("smoke.log");
        Files.createDirectories(out);
        ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
                jar.toString(), "--smoke", "--scenario", String.join(",", SCENARIOS), "--out", out.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
        String server = System.getenv("PGQUEUE_TEST_JDBC_URL");
        if (server != null && !server.isBlank() && System.getenv("PGQUEUE_BENCH_JDBC_URL") == null) {
            // the server the tests use, as they do; else the jar starts its embedded PostgreSQL
            builder.environment().put("PGQUEUE_BENCH_JDBC_URL", server);
        }
        Process benchmark = builder.start();
        boolean ended = benchmark.waitFor(20, TimeUnit.MINUTES);
        if (!ended) {
            benchmark.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(ended).as("the smoke run ended within 20 minutes:\n" + output).isTrue();
        assertThat(benchmark.exitValue()).as(output).isZero();

        Map<String, List<String>> rows = rowsByScenario(output);
        assertThat(rows.keySet()).as(output).containsExactlyElementsOf(SCENARIOS);
        rows.forEach((scenario, lines) -> assertThat(lines).as("rows of " + scenario + "\n" + output).isNotEmpty());
        assertThat(output).contains("Results written to");
    }

    /** The result lines printed under each "== scenario" header. */
    private static Map<String, List<String>> rowsByScenario(String output) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : output.split("\n")) {
            if (line.startsWith("== ")) {
                current = new ArrayList<>();
                rows.put(line.substring(3).trim(), current);
            }
            else if (current != null && line.startsWith("   ") && !line.isBlank()) {
                current.add(line);
            }
            else if (line.startsWith("|")) {
                current = null;
            }
        }
        return rows;
    }
}
