package io.pgqueue.listener.error;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Delay before retry n: {@code initial * multiplier^(n-1)}, at most {@code max}, spread by up to
 * {@code ±jitter} of itself so that jobs that failed together do not retry together. Stateless: the attempt
 * number is stored with the job.
 *
 * @param initial delay after the first failed attempt
 * @param multiplier growth per attempt, at least 1
 * @param max largest delay
 * @param jitter fraction of the delay to randomise, from 0 (none) to below 1
 */
public record ExponentialBackoff(Duration initial, double multiplier, Duration max, double jitter) {

    public static final ExponentialBackoff DEFAULT = new ExponentialBackoff(Duration.ofSeconds(1), 2.0,
            Duration.ofMinutes(10), 0.2);

    public ExponentialBackoff {
        if (initial.isNegative()) {
            throw new IllegalArgumentException("initial must not be negative: " + initial);
        }
        if (multiplier < 1.0) {
            throw new IllegalArgumentException("multiplier must be at least 1: " + multiplier);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("max must be at least initial: " + max);
        }
        if (jitter < 0.0 || jitter >= 1.0) {
            throw new IllegalArgumentException("jitter must be at least 0 and below 1: " + jitter);
        }
    }

    /** The delay after the given failed attempt (1 for the first). */
    public Duration delayAfter(int attempt) {
        double millis = initial.toMillis() * Math.pow(multiplier, Math.max(0, attempt - 1));
        millis = Math.min(millis, max.toMillis());
        if (jitter > 0) {
            millis = millis * (1.0 + ThreadLocalRandom.current().nextDouble(-jitter, jitter));
        }
        return Duration.ofMillis(Math.round(Math.min(millis, max.toMillis())));
    }
}
