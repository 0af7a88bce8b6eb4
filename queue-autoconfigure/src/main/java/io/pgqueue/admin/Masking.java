package io.pgqueue.admin;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * How the Actuator endpoint and the dashboard hide what a job carries unless shown on purpose: payloads,
 * outputs and errors, and also what often holds personal data: header values, group and dedup keys (user ids,
 * e-mail addresses), progress messages, fairness keys (tenant ids; each shows as its handle, see
 * {@code FairnessKeyInfo.handle()}). Names, states, counts and times stay visible.
 */
public final class Masking {

    /** What a masked value reads as. */
    public static final String MASK = "******";

    private Masking() {
    }

    /** The value, or the mask unless {@code show}; null stays null (there is nothing to hide). */
    public static @Nullable String mask(@Nullable String value, boolean show) {
        return (value == null || show) ? value : MASK;
    }

    /**
     * A value as it may appear in a log line: line breaks and other control characters, which would let a
     * request forge log lines, become '_'.
     */
    public static String loggable(@Nullable Object value) {
        return String.valueOf(value).replaceAll("\\p{Cntrl}", "_");
    }

    /** The headers with each value masked unless {@code show}; their names stay. */
    public static Map<String, String> maskValues(Map<String, String> headers, boolean show) {
        if (show || headers.isEmpty()) {
            return headers;
        }
        Map<String, String> masked = new LinkedHashMap<>();
        headers.keySet().forEach((name) -> masked.put(name, MASK));
        return masked;
    }
}
