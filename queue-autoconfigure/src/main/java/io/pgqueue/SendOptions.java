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

    /** The key of jobs sent without one to a fair queue. */
    public static final String DEFAULT_FAIRNESS_KEY = "default";

    private final @Nullable Duration delay;

    private final @Nullable Instant runAt;

    private final short priority;

    private final @Nullable String dedupKey;

    private final @Nullable Integer maxAttempts;

    private final @Nullable String groupKey;

    private final Map<String, String> headers;

    private final @Nullable Duration timeout;

    private final @Nullable Duration dedupFor;

    private final @Nullable String debounceKey;

    private final @Nullable Duration debounceWindow;

    private final @Nullable String fairnessKey;

    private SendOptions(Builder builder) {
        this.delay = builder.delay;
        this.runAt = builder.runAt;
        this.priority = builder.priority;
        this.dedupKey = builder.dedupKey;
        this.maxAttempts = builder.maxAttempts;
        this.groupKey = builder.groupKey;
        this.headers = Map.copyOf(builder.headers);
        this.timeout = builder.timeout;
        this.dedupFor = builder.dedupFor;
        this.debounceKey = builder.debounceKey;
        this.debounceWindow = builder.debounceWindow;
        this.fairnessKey = builder.fairnessKey;
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
        builder.timeout = timeout;
        builder.dedupFor = dedupFor;
        builder.debounceKey = debounceKey;
        builder.fairnessKey = fairnessKey;
        builder.debounceWindow = debounceWindow;
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

    /**
     * The key a fair queue charges the job to (a tenant, an account), or null: a fair queue shares its workers
     * among its keys by weight (see {@code pgqueue.queues.<name>.fairness}); the template gives jobs sent without
     * one to a fair queue the key {@value #DEFAULT_FAIRNESS_KEY}.
     */
    public @Nullable String fairnessKey() {
        return fairnessKey;
    }

    public Map<String, String> headers() {
        return headers;
    }

    /** The most a handler may run on this job, or null for the listener's timeout. */
    public @Nullable Duration timeout() {
        return timeout;
    }

    /** How long the dedup key stays taken after this send, whether or not the job finished; or null. */
    public @Nullable Duration dedupFor() {
        return dedupFor;
    }

    /** The debounce key, or null when the send is not debounced. */
    public @Nullable String debounceKey() {
        return debounceKey;
    }

    /** The quiet window of a debounced send, or null. */
    public @Nullable Duration debounceWindow() {
        return debounceWindow;
    }

    @Override
    public String toString() {
        return "SendOptions[delay=" + delay + ", runAt=" + runAt + ", priority=" + priority + ", dedupKey=" + dedupKey
                + ", dedupFor=" + dedupFor + ", maxAttempts=" + maxAttempts + ", groupKey=" + groupKey + ", fairnessKey=" + fairnessKey + ", timeout="
                + timeout + ", debounce=" + debounceKey + "/" + debounceWindow + ", headers=" + headers + "]";
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

        private @Nullable String fairnessKey;

        private final Map<String, String> headers = new LinkedHashMap<>();

        private @Nullable Duration timeout;

        private @Nullable Duration dedupFor;

        private @Nullable String debounceKey;

        private @Nullable Duration debounceWindow;

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

        /**
         * With {@link #dedupKey}: the key stays taken for this long after the send, even once the job finished,
         * so a second send with the key within the window is a duplicate (River's unique-by-period).
         */
        public Builder dedupFor(Duration window) {
            this.dedupFor = requirePositive(window, "dedupFor");
            return this;
        }

        /**
         * Debounces the send: sends with this key collapse into one job, which runs once no send of the key came
         * for {@code window}; it runs with the payload, headers and options of the last send. Cannot be combined
         * with a delay, run-at or dedup key, nor used in a batch.
         */
        public Builder debounce(String key, Duration window) {
            this.debounceKey = requireKey(key, "debounce key");
            this.debounceWindow = requirePositive(window, "debounce window");
            return this;
        }

        /**
         * The most a handler may run on this job; past it the handler's thread is interrupted and the attempt
         * fails with a timeout (retried or sent dead by the usual rules). Overrides the listener's timeout.
         */
        public Builder timeout(Duration timeout) {
            this.timeout = requirePositive(timeout, "timeout");
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

        /**
         * The key a fair queue charges the job to: under contention each key of the queue receives workers in
         * proportion to its weight, a key alone receives all of them.
         */
        public Builder fairnessKey(String fairnessKey) {
            this.fairnessKey = requireKey(fairnessKey, "fairnessKey");
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
            if (dedupFor != null && dedupKey == null) {
                throw new IllegalArgumentException("dedupFor needs a dedupKey");
            }
            if (debounceKey != null && (delay != null || runAt != null || dedupKey != null)) {
                throw new IllegalArgumentException("debounce cannot be combined with delay, runAt or dedupKey: the "
                        + "debounce window is the delay, and its key the dedup key");
            }
            return new SendOptions(this);
        }

        private static Duration requirePositive(Duration duration, String what) {
            Objects.requireNonNull(duration, what);
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + duration);
            }
            return duration;
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
