package io.pgqueue.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Runs the benchmark: {@code java -jar queue-benchmark/target/queue-benchmark.jar --scenario all}.
 * Options: {@code --scenario enqueue,drain,steady,pickup,backlog,metrics,memory,peer,queues,payloads,nodes,work|all},
 * {@code --payload-sizes 100,262144} (bytes, for {@code payloads}), {@code --quick} (smaller sizes),
 * {@code --smoke} (every scenario at its smallest, one round: proves they run, measures nothing), {@code --out DIR} (default benchmark-results);
 * {@code --scenario churn --duration 30m --rate 1000} measures table health under sustained load.
 */
public final class BenchmarkMain {

    private static final List<String> ALL = List.of("enqueue", "drain", "steady", "pickup", "backlog", "metrics",
            "memory", "peer", "broker", "queues", "payloads", "nodes", "work");

    /** Scenarios that run only when named. */
    private static final List<String> EXTRA = List.of("churn", "long-transaction", "long-transaction-steady", "history",
            "workflows", "batches", "fairness", "virtual-threads", "databases", "flow-control", "durable");

    private static final String USAGE = """
            java -jar queue-benchmark.jar [options]
              --scenario a,b     scenarios to run (default all): %s; only when named: %s
              --quick            smaller sizes, fewer minutes
              --smoke            every scenario at its smallest, one round: proves each runs, measures nothing
              --out DIR          where results (CSV, JSON, Markdown) and thread dumps go (default benchmark-results)
              --payload-sizes N,N  payload sizes in bytes for 'payloads'
              --duration 30m --rate 1000   length and offered rate of 'churn'
              --chart A.csv,B.csv  draw the queues, nodes and payload curves of result CSVs as DIR/scaling.svg
            PGQUEUE_BENCH_JDBC_URL runs against that server instead of an embedded PostgreSQL.
            """.formatted(String.join(",", ALL), String.join(",", EXTRA));

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(MemoryScenario.CHILD_FLAG)) {
            MemoryScenario.child(args);
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals(NodesScenario.CHILD_FLAG)) {
            NodesScenario.child(args);
            System.exit(0);
        }
        List<String> arguments = Arrays.asList(args);
        if (arguments.contains("--chart")) {
            List<Path> csvs = Arrays.stream(option(arguments, "--chart", "").split(",")).map(Path::of).toList();
            System.out.println("Chart written to " + Charts.write(csvs, Path.of(option(arguments, "--out", "."))));
            return;
        }
        if (arguments.contains("--help")) {
            System.out.println(USAGE);
            return;
        }
        Set<String> scenarios = scenarios(option(arguments, "--scenario", "all"));
        boolean smoke = arguments.contains("--smoke");
        boolean quick = smoke || arguments.contains("--quick");
        if (smoke) {
            // before any scenario class reads them
            BenchSettings.smoke();
        }
        Path out = Path.of(option(arguments, "--out", "benchmark-results"));
        Scenarios.Sizes sizes = smoke ? Scenarios.Sizes.SMOKE : quick ? Scenarios.Sizes.QUICK : Scenarios.Sizes.FULL;

        List<Result> results = new ArrayList<>();
        try (BenchServer server = BenchServer.start()) {
            Map<String, String> settings = server.settings();
            System.out.println("PostgreSQL (" + server.origin() + "): " + settings);
            System.out.println("JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                    + ", " + Runtime.getRuntime().availableProcessors() + " processors");
            Scenarios run = new Scenarios(server, sizes, out);
            for (String scenario : scenarios) {
                System.out.println("== " + scenario);
                List<Result> found = switch (scenario) {
                    case "enqueue" -> run.enqueue();
                    case "drain" -> run.drain();
                    case "steady" -> run.steady();
                    case "pickup" -> run.pickup();
                    case "backlog" -> run.backlog();
                    case "metrics" -> run.metricsCost();
                    case "memory" -> MemoryScenario.run(server, sizes.memoryJobs());
                    case "peer" -> PeerScenario.run(run, server, sizes.drainJobs());
                    case "broker" -> BrokerScenario.run(run, server, sizes);
                    case "virtual-threads" -> VirtualThreadsScenario.run(server, smoke ? 2_000 : quick ? 50_000 : 200_000);
                    case "nodes" -> NodesScenario.run(server, sizes.drainJobs());
                    case "databases" -> DatabasesScenario.run(smoke ? 1_000 : quick ? 20_000 : 100_000, smoke ? 1 : 3);
                    case "work" -> HandlerWorkScenario.run(server, Duration.ofSeconds(quick ? 1 : 5));
                    case "flow-control" -> FlowControlScenario.run(server, smoke ? 1 : quick ? 3 : 10);
                    case "durable" -> DurableScenario.run(run, server, smoke ? 500 : quick ? 5_000 : 20_000,
                            smoke ? 2_000 : quick ? 100_000 : 1_000_000, smoke ? 20 : quick ? 200 : 1_000);
                    case "payloads" -> run.payloads(option(arguments, "--payload-sizes", null) == null
                            ? (smoke ? Scenarios.SMOKE_PAYLOAD_SIZES : Scenarios.PAYLOAD_SIZES)
                            : Arrays.stream(option(arguments, "--payload-sizes", "").split(","))
                                .mapToInt(Integer::parseInt).toArray());
                    case "queues" -> QueuesScenario.run(server, sizes.drainJobs() / 10,
                            (int) (sizes.pickup().toMillis() / 40));
                    case "history" -> HistoryScenario.run(server, smoke ? 20_000 : quick ? 1_000_000 : 10_000_000);
                    case "workflows" -> WorkflowsScenario.run(server, smoke ? 200 : 10_000,
                            smoke ? 100 : quick ? 1_000 : 10_000, smoke ? 1_000 : quick ? 100_000 : 1_000_000);
                    case "batches" -> BatchesScenario.run(server, smoke ? 200 : quick ? 20_000 : 100_000,
                            smoke ? 1 : quick ? 2 : 3);
                    case "fairness" -> FairnessScenario.run(server, smoke ? 2_000 : quick ? 200_000 : 1_000_000,
                            smoke ? 2 : quick ? 10 : 60, smoke ? 2_000 : quick ? 100_000 : 500_000,
                            smoke ? 400 : quick ? 20_000 : 100_000);
                    case "long-transaction" -> LongTransactionScenario.run(run,
                            Integer.getInteger("bench.long-transaction.jobs", sizes.drainJobs() / 2));
                    case "long-transaction-steady" -> LongTransactionScenario.steady(run, sizes.steady());
                    case "churn" -> ChurnScenario.run(server,
                            Duration.parse("PT" + option(arguments, "--duration", "30m").toUpperCase(Locale.ROOT)),
                            Integer.parseInt(option(arguments, "--rate", "1000")));
                    default -> throw new IllegalArgumentException("Unknown scenario " + scenario);
                };
                found.forEach((result) -> System.out.println("   " + line(result)));
                results.addAll(found);
            }
            System.out.println();
            System.out.println(table(results));
            write(out, results, settings);
        }
        System.exit(0);
    }

    private static Set<String> scenarios(String value) {
        if (value.equals("all")) {
            return new LinkedHashSet<>(ALL);
        }
        Set<String> chosen = new LinkedHashSet<>(Arrays.asList(value.split(",")));
        chosen.forEach((scenario) -> {
            if (!ALL.contains(scenario) && !EXTRA.contains(scenario)) {
                throw new IllegalArgumentException("Unknown scenario '" + scenario + "': choose from " + ALL + " or "
                        + EXTRA);
            }
        });
        return chosen;
    }

    private static String option(List<String> arguments, String name, String fallback) {
        int index = arguments.indexOf(name);
        return (index >= 0 && index + 1 < arguments.size()) ? arguments.get(index + 1) : fallback;
    }

    private static String line(Result result) {
        return String.format(Locale.ROOT, "%-22s %-64s %12s %12s %-7s %6s", result.scenario(), result.variant(),
                number(result.pgqueue()), number(result.baseline()), result.unit(), ratio(result));
    }

    static String table(List<Result> results) {
        StringBuilder table = new StringBuilder();
        table.append("| scenario | variant | pgqueue | raw SQL | unit | ratio | notes |\n");
        table.append("|---|---|---:|---:|---|---:|---|\n");
        for (Result result : results) {
            table.append("| ")
                .append(result.scenario())
                .append(" | ")
                .append(result.variant())
                .append(" | ")
                .append(number(result.pgqueue()))
                .append(" | ")
                .append(number(result.baseline()))
                .append(" | ")
                .append(result.unit())
                .append(" | ")
                .append(ratio(result))
                .append(" | ")
                .append(result.notes())
                .append(" |\n");
        }
        return table.toString();
    }

    private static String number(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        return (Math.abs(value) >= 100) ? String.format(Locale.ROOT, "%,.0f", value)
                : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String ratio(Result result) {
        return Double.isNaN(result.ratio()) ? "-" : String.format(Locale.ROOT, "%.2f", result.ratio());
    }

    private static void write(Path out, List<Result> results, Map<String, String> settings) throws IOException {
        Files.createDirectories(out);
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        StringBuilder csv = new StringBuilder("scenario,variant,pgqueue,baseline,unit,ratio,notes\n");
        StringBuilder json = new StringBuilder("{\n  \"settings\": {");
        json.append(String.join(", ", settings.entrySet()
            .stream()
            .map((e) -> quote(e.getKey()) + ": " + quote(e.getValue()))
            .toList()));
        json.append("},\n  \"results\": [\n");
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            csv.append(String.join(",", csvField(r.scenario()), csvField(r.variant()), plain(r.pgqueue()),
                    plain(r.baseline()), r.unit(), plain(r.ratio()), csvField(r.notes())))
                .append('\n');
            json.append("    {\"scenario\": ")
                .append(quote(r.scenario()))
                .append(", \"variant\": ")
                .append(quote(r.variant()))
                .append(", \"pgqueue\": ")
                .append(jsonNumber(r.pgqueue()))
                .append(", \"baseline\": ")
                .append(jsonNumber(r.baseline()))
                .append(", \"unit\": ")
                .append(quote(r.unit()))
                .append(", \"ratio\": ")
                .append(jsonNumber(r.ratio()))
                .append(", \"notes\": ")
                .append(quote(r.notes()))
                .append(i + 1 < results.size() ? "},\n" : "}\n");
        }
        json.append("  ]\n}\n");
        Files.writeString(out.resolve("results-" + stamp + ".csv"), csv);
        Files.writeString(out.resolve("results-" + stamp + ".json"), json);
        Files.writeString(out.resolve("results-" + stamp + ".md"), table(results));
        System.out.println("Results written to " + out.toAbsolutePath() + " (results-" + stamp + ".csv/.json/.md)");
    }

    private static String plain(double value) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value);
    }

    private static String jsonNumber(double value) {
        return Double.isNaN(value) ? "null" : String.format(Locale.ROOT, "%.3f", value);
    }

    private static String csvField(String value) {
        return "\"" + value.replace("\"", "\"\"") + "\"";
    }

    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
