package io.pgqueue.benchmark;

import java.util.Arrays;

/**
 * Knobs the scenarios read from system properties (set on the command line, or by {@code --smoke}): rounds per
 * comparison, the points of the node and queue curves, and the lengths of idle and paced phases.
 */
final class BenchSettings {

    /** Measured rounds of each comparison, after one warm-up round. */
    static final String ROUNDS = "bench.rounds";

    static final String NODES = "bench.nodes";

    static final String QUEUES = "bench.queues";

    /** How long the idle-cost phases of 'nodes' and 'queues' last. */
    static final String IDLE_SECONDS = "bench.idle-seconds";

    /** How long 'work' offers its paced load. */
    static final String PACED_SECONDS = "bench.paced-seconds";

    /**
     * The drain settings to run, e.g. {@code TRANSACTIONAL:8/50,LEASE:128/100/100} (mode, then concurrency / batch
     * / prefetch); a mode not named is skipped. Unset: every setting of both modes.
     */
    static final String DRAIN = "bench.drain";

    private BenchSettings() {
    }

    /**
     * The smoke run: every scenario at its smallest, one round, short phases. It proves that each scenario runs
     * and prints its rows, not how fast anything is.
     */
    static void smoke() {
        System.setProperty(ROUNDS, "1");
        System.setProperty(NODES, "1,2");
        System.setProperty(QUEUES, "1,10");
        System.setProperty(IDLE_SECONDS, "1");
        System.setProperty(PACED_SECONDS, "2");
    }

    static int rounds() {
        return Integer.getInteger(ROUNDS, 3);
    }

    static long idleSeconds() {
        return Long.getLong(IDLE_SECONDS, 10);
    }

    static long pacedSeconds() {
        return Long.getLong(PACED_SECONDS, 15);
    }

    static java.util.List<Scenarios.Setting> drainSettings(String mode, java.util.List<Scenarios.Setting> all) {
        String chosen = System.getProperty(DRAIN);
        if (chosen == null) {
            return all;
        }
        return Arrays.stream(chosen.split(","))
            .map(String::trim)
            .filter((one) -> one.startsWith(mode + ":"))
            .map((one) -> {
                int[] numbers = Arrays.stream(one.substring(mode.length() + 1).split("/")).mapToInt(Integer::parseInt)
                    .toArray();
                return new Scenarios.Setting(numbers[0], numbers[1], (numbers.length > 2) ? numbers[2] : 0);
            })
            .toList();
    }

    static int[] counts(String property, String defaults) {
        return Arrays.stream(System.getProperty(property, defaults).split(","))
            .mapToInt((count) -> Integer.parseInt(count.trim()))
            .toArray();
    }
}
