package io.pgqueue.listener;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * At most {@code permits} job starts per {@code window} across the cluster, e.g. {@code 100/1s}.
 *
 * @param permits job starts allowed per window
 * @param window the window length
 */
public record RateLimit(int permits, Duration window) {

    private static final Pattern FORMAT = Pattern.compile("\\s*(\\d+)\\s*/\\s*(\\d+)\\s*(ms|s|m|h)\\s*");

    public RateLimit {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1");
        }
        if (window.toMillis() < 1) {
            throw new IllegalArgumentException("window must be at least 1 ms");
        }
    }

    /** Parses {@code <permits>/<amount><unit>} with unit ms, s, m or h, e.g. {@code 20/1s}. */
    public static RateLimit parse(String value) {
        Matcher matcher = FORMAT.matcher(value);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("'" + value + "' is not a rate: use <permits>/<window>, e.g. 100/1s, "
                    + "with a window in ms, s, m or h");
        }
        long amount = Long.parseLong(matcher.group(2));
        Duration window = switch (matcher.group(3)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
        return new RateLimit(Integer.parseInt(matcher.group(1)), window);
    }

    @Override
    public String toString() {
        return permits + "/" + window.toMillis() + "ms";
    }
}
