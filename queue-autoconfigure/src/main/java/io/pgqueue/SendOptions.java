package io.pgqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * How one job is sent: when it may run, its priority, de-duplication, attempts, ordering group and headers.
 * Immutable; build with {@link #builder()}.
 */
public final class SendOptions {

    private static final SendOptions DEFAULTS = builder().build();

    private final @Nullable Duration delay;

    private final @Nullable Instant runAt;

    private final short priority;

    private final @Nullable String dedupKey;

    private final @Nullable Integer maxAttempts;

    private final @Nullable String groupKey;

    private final Map<String, String> headers;

    private SendOptions(Builder builder) {
        this.delay = builder.delay;
        this.runAt = builder.runAt;
        this.priority = builder.priority;
        this.dedupKey = builder.dedupKey;
        this.maxAttempts = builder.maxAttempts;
        this.groupKey = builder.groupKey;
        this.headers = Map.copyOf(builder.headers);
    }

    /** Run as soon as possible, priority 0, no dedup key, the listener's max attempts, no group, no headers. */
    public static SendOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.delay = delay;
        builder.runAt = runAt;
        builder.priority = priority;
        builder.dedupKey = dedupKey;
        builder.maxAttempts = maxAttempts;
        builder.groupKey = groupKey;
        builder.headers.putAll(headers);
        return builder;
    }

    /** Delay from the database's clock at enqueue time, or null. */
    public @Nullable Duration delay() {
        return delay;
    }

    /** Absolute time before which the job does not run, or null. */
    public @Nullable Instant runAt() {
        return runAt;
    }

    /** Higher runs first; default 0. */
    public short priority() {
        return priority;
    }

    public @Nullable String dedupKey() {
        return dedupKey;
    }

    public @Nullable Integer maxAttempts() {
        return maxAttempts;
    }

    public @Nullable String groupKey() {
        return groupKey;
    }

    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String toString() {
        return "SendOptions[delay=" + delay + ", runAt=" + runAt + ", priority=" + priority + ", dedupKey=" + dedupKey
                + ", maxAttempts=" + maxAttempts + ", groupKey=" + groupKey + ", headers=" + headers + "]";
    }

    /** Longest dedup key or group key, in characters: keys live in indexes, whose entries are bounded. */
    public static final int MAX_KEY_LENGTH = 512;

    /** Most characters of all header names and values together. */
    public static final int MAX_HEADERS_LENGTH = 16_384;

    /** Builder for {@link SendOptions}. */
    public static final class Builder {

        private @Nullable Duration delay;

        private @Nullable Instant runAt;

        private short priority;

        private @Nullable String dedupKey;

        private @Nullable Integer maxAttempts;

        private @Nullable String groupKey;

        private final Map<String, String> headers = new LinkedHashMap<>();

        private Builder() {
        }

        /** Run no earlier than this long after enqueue (database clock). Clears {@link #runAt}. */
        public Builder delay(Duration delay) {
            Objects.requireNonNull(delay, "delay");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay must not be negative: " + delay);
            }
            this.delay = delay;
            this.runAt = null;
            return this;
        }

        /** Run no earlier than this instant. Clears {@link #delay}. */
        public Builder runAt(Instant runAt) {
            this.runAt = Objects.requireNonNull(runAt, "runAt");
            this.delay = null;
            return this;
        }

        /** Higher runs first, from -32768 to 32767; default 0. */
        public Builder priority(int priority) {
            if (priority < Short.MIN_VALUE || priority > Short.MAX_VALUE) {
                throw new IllegalArgumentException("priority must be between -32768 and 32767: " + priority);
            }
            this.priority = (short) priority;
            return this;
        }

        /**
         * While a job with this key is scheduled, ready or running in the queue, sending another one with the
         * same key inserts nothing.
         */
        public Builder dedupKey(String dedupKey) {
            this.dedupKey = requireKey(dedupKey, "dedupKey");
            return this;
        }

        /** Attempts before the job goes dead; overrides the listener's setting. */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** Jobs of one queue with the same group key run one at a time, in the order they were sent. */
        public Builder groupKey(String groupKey) {
            this.groupKey = requireKey(groupKey, "groupKey");
            return this;
        }

        public Builder header(String name, String value) {
            this.headers.put(requireText(name, "header name"), Objects.requireNonNull(value, "header value"));
            int length = headers.entrySet().stream().mapToInt((e) -> e.getKey().length() + e.getValue().length()).sum();
            if (length > MAX_HEADERS_LENGTH) {
                this.headers.remove(name);
                throw new IllegalArgumentException("headers must not exceed " + MAX_HEADERS_LENGTH
                        + " characters in all; adding '" + name + "' makes " + length);
            }
            return this;
        }

        public Builder headers(Map<String, String> headers) {
            headers.forEach(this::header);
            return this;
        }

        public SendOptions build() {
            return new SendOptions(this);
        }

        private static String requireKey(String value, String what) {
            requireText(value, what);
            if (value.length() > MAX_KEY_LENGTH) {
                throw new IllegalArgumentException(what + " must not exceed " + MAX_KEY_LENGTH + " characters, was "
                        + value.length());
            }
            return value;
        }

        private static String requireText(String value, String what) {
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException(what + " must not be empty");
            }
            return value;
        }
    }
}
