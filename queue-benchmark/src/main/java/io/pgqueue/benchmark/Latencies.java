package io.pgqueue.benchmark;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Latency samples in nanoseconds, recorded from many threads; percentiles by sorting a copy.
 */
final class Latencies {

    private final long[] samples;

    private final AtomicInteger count = new AtomicInteger();

    Latencies(int capacity) {
        this.samples = new long[capacity];
    }

    void record(long nanos) {
        int index = count.getAndIncrement();
        if (index < samples.length) {
            samples[index] = nanos;
        }
    }

    /** Forgets the samples recorded so far (after a warm-up). */
    void clear() {
        count.set(0);
    }

    int size() {
        return Math.min(count.get(), samples.length);
    }

    /** The given percentile (0 to 100) in milliseconds. */
    double percentileMillis(double percentile) {
        int size = size();
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(samples, size);
        Arrays.sort(sorted);
        int index = (int) Math.min(size - 1, Math.ceil(percentile / 100.0 * size) - 1);
        return sorted[Math.max(0, index)] / 1e6;
    }
}
