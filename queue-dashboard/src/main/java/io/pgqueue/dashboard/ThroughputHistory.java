package io.pgqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import io.pgqueue.model.QueueStats;
import org.jspecify.annotations.Nullable;

/**
 * Made by {@link io.pgqueue.dashboard.autoconfigure.PgQueueDashboardAutoConfiguration}; public for it alone, not an API.
 * <p>
 * Completed and failed jobs per minute, from the monotonic totals of the counters sampled when pages ask for
 * the overview: nothing is read while nobody looks, and a page opened later still finds the recent past.
 * Rates come from differences of totals, so they are exact whichever node ran the jobs.
 */
public final class ThroughputHistory {

    /** How far back the charts go. */
    static final Duration KEPT = Duration.ofMinutes(15);

    /** Samples closer together than this add nothing (several open pages poll at once). */
    private static final Duration MIN_GAP = Duration.ofMillis(900);

    /** The current rate is taken over at least this much time, to smooth single refreshes. */
    private static final Duration CURRENT_WINDOW = Duration.ofSeconds(10);

    /** The key of the sum over all queues. */
    static final String CLUSTER = "";

    private final Deque<Sample> samples = new ArrayDeque<>();

    /** Records the totals of this moment (unless sampled a moment ago) and returns the history per queue. */
    synchronized Rates record(Instant now, List<QueueStats> queues) {
        Sample last = samples.peekLast();
        if (last == null || Duration.between(last.at(), now).compareTo(MIN_GAP) >= 0) {
            samples.addLast(Sample.of(now, queues));
        }
        while (Duration.between(samples.getFirst().at(), now).compareTo(KEPT) > 0) {
            samples.removeFirst();
        }
        return rates();
    }

    private Rates rates() {
        Map<String, List<RatePoint>> history = new HashMap<>();
        Map<String, RatePoint> current = new HashMap<>();
        Sample previous = null;
        for (Sample sample : samples) {
            if (previous != null) {
                for (String queue : sample.totals().keySet()) {
                    history.computeIfAbsent(queue, (q) -> new ArrayList<>()).add(rate(previous, sample, queue));
                }
            }
            previous = sample;
        }
        Sample latest = samples.peekLast();
        Sample windowStart = windowStart(latest);
        if (latest != null && windowStart != null) {
            latest.totals().keySet().forEach((queue) -> current.put(queue, rate(windowStart, latest, queue)));
        }
        return new Rates(history, current);
    }

    /** The newest sample at least the current window older than the latest, else the oldest one. */
    private @Nullable Sample windowStart(@Nullable Sample latest) {
        if (latest == null || samples.size() < 2) {
            return null;
        }
        Iterator<Sample> newestFirst = samples.descendingIterator();
        newestFirst.next();
        Sample start = null;
        while (newestFirst.hasNext()) {
            start = newestFirst.next();
            if (Duration.between(start.at(), latest.at()).compareTo(CURRENT_WINDOW) >= 0) {
                break;
            }
        }
        return start;
    }

    private static RatePoint rate(Sample from, Sample to, String queue) {
        double minutes = Duration.between(from.at(), to.at()).toMillis() / 60_000.0;
        long[] before = from.totals().getOrDefault(queue, new long[2]);
        long[] after = to.totals().get(queue);
        // a total never shrinks unless its counters row was reset (e.g. a queue dropped): no negative rate
        return new RatePoint(to.at(), Math.max(0, after[0] - before[0]) / minutes,
                Math.max(0, after[1] - before[1]) / minutes);
    }

    /**
     * Rates of each queue (and of {@link #CLUSTER}).
     *
     * @param history one point per interval between samples, oldest first
     * @param current the rate over about the last ten seconds, absent until there are two samples
     */
    record Rates(Map<String, List<RatePoint>> history, Map<String, RatePoint> current) {
    }

    /**
     * Throughput at a moment.
     *
     * @param at the end of the interval
     * @param completedPerMinute jobs completed per minute over the interval
     * @param failedPerMinute failed attempts per minute over the interval
     */
    record RatePoint(Instant at, double completedPerMinute, double failedPerMinute) {
    }

    /** Each queue's completed and failed totals at a moment, and their sums. */
    private record Sample(Instant at, Map<String, long[]> totals) {

        static Sample of(Instant at, List<QueueStats> queues) {
            Map<String, long[]> totals = new HashMap<>();
            long completed = 0;
            long failed = 0;
            for (QueueStats queue : queues) {
                totals.put(queue.queue(), new long[] { queue.counts().completed(), queue.counts().failed() });
                completed += queue.counts().completed();
                failed += queue.counts().failed();
            }
            totals.put(CLUSTER, new long[] { completed, failed });
            return new Sample(at, totals);
        }
    }
}
