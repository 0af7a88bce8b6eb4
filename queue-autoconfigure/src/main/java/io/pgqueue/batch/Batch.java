package io.pgqueue.batch;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.pgqueue.SendOptions;
import io.pgqueue.model.BatchEventType;
import org.jspecify.annotations.Nullable;

/**
 * A batch to open: a name, properties its callbacks receive, and the callbacks, each a job sent to a queue of
 * your choice when its event happens ({@link BatchEventType}): exactly once, in the transaction of the member's
 * change that decides it, never before the batch is sealed. Immutable; build it with {@link #builder(String)}.
 *
 * <pre>{@code
 * Batch batch = Batch.builder("import-2026-11")
 *     .property("file", "customers.csv")
 *     .onSuccess("import-done")
 *     .onFirstDeath("import-alerts", SendOptions.builder().priority(10).build())
 *     .build();
 * }</pre>
 */
public final class Batch {

    /** The most properties may take, as JSON text (bytes of UTF-8): they travel in every callback's payload. */
    public static final int MAX_PROPERTIES_BYTES = 8 * 1024;

    private final String name;

    private final Map<String, String> properties;

    private final Map<BatchEventType, Callback> callbacks;

    private final boolean completeOnCancel;

    private Batch(Builder builder) {
        this.name = builder.name;
        this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(builder.properties));
        this.callbacks = Collections.unmodifiableMap(new EnumMap<>(builder.callbacks));
        this.completeOnCancel = builder.completeOnCancel;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    public Map<String, String> properties() {
        return properties;
    }

    /** The callbacks by event. */
    public Map<BatchEventType, Callback> callbacks() {
        return callbacks;
    }

    /** Whether cancelling the batch still fires onComplete once its running members finished. */
    public boolean completeOnCancel() {
        return completeOnCancel;
    }

    /**
     * A callback: the queue its job goes to and the options of that job. Priority, delay, attempts, group key,
     * timeout and headers apply; a run-at, dedup key or debounce does not (a callback fires once by itself).
     *
     * @param queue the queue
     * @param options the job's options
     */
    public record Callback(String queue, SendOptions options) {

        public Callback {
            Objects.requireNonNull(queue, "queue");
            Objects.requireNonNull(options, "options");
            if (options.runAt() != null || options.dedupKey() != null || options.dedupFor() != null
                    || options.debounceKey() != null) {
                throw new InvalidBatchException("The callback on queue '" + queue + "' has a run-at, dedup key or "
                        + "debounce: a callback's job takes a delay, priority, attempts, group key, timeout and headers");
            }
        }
    }

    /** Builds a {@link Batch}. */
    public static final class Builder {

        private final String name;

        private final Map<String, String> properties = new LinkedHashMap<>();

        private final Map<BatchEventType, Callback> callbacks = new EnumMap<>(BatchEventType.class);

        private boolean completeOnCancel;

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank() || name.length() > 200) {
                throw new InvalidBatchException("A batch name must be 1 to 200 characters: '" + name + "'");
            }
            this.name = name;
        }

        /** A property the callbacks receive (in {@link BatchEvent#properties()}). */
        public Builder property(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public Builder properties(Map<String, String> properties) {
            properties.forEach(this::property);
            return this;
        }

        /** Fires when every member completed. */
        public Builder onSuccess(String queue) {
            return on(BatchEventType.SUCCESS, queue, SendOptions.defaults());
        }

        public Builder onSuccess(String queue, SendOptions options) {
            return on(BatchEventType.SUCCESS, queue, options);
        }

        /** Fires when every member finished: completed, dead or cancelled. */
        public Builder onComplete(String queue) {
            return on(BatchEventType.COMPLETE, queue, SendOptions.defaults());
        }

        public Builder onComplete(String queue, SendOptions options) {
            return on(BatchEventType.COMPLETE, queue, options);
        }

        /** Fires when a member first ends dead. */
        public Builder onFirstDeath(String queue) {
            return on(BatchEventType.FIRST_DEATH, queue, SendOptions.defaults());
        }

        public Builder onFirstDeath(String queue, SendOptions options) {
            return on(BatchEventType.FIRST_DEATH, queue, options);
        }

        /** Fires when a member first ends dead or cancelled. */
        public Builder onCannotSucceed(String queue) {
            return on(BatchEventType.CANNOT_SUCCEED, queue, SendOptions.defaults());
        }

        public Builder onCannotSucceed(String queue, SendOptions options) {
            return on(BatchEventType.CANNOT_SUCCEED, queue, options);
        }

        /** The callback of an event (one per event; a later one replaces it). */
        public Builder on(BatchEventType event, String queue, SendOptions options) {
            callbacks.put(Objects.requireNonNull(event, "event"), new Callback(queue, options));
            return this;
        }

        /** Whether cancelling the batch still fires onComplete, once its running members finished (default false). */
        public Builder completeOnCancel(boolean completeOnCancel) {
            this.completeOnCancel = completeOnCancel;
            return this;
        }

        public Batch build() {
            int size = 2;
            for (Map.Entry<String, String> property : properties.entrySet()) {
                size += jsonLength(property.getKey()) + jsonLength(property.getValue()) + 2;
            }
            if (size > MAX_PROPERTIES_BYTES) {
                throw new InvalidBatchException("The properties of batch '" + name + "' take " + size
                        + " bytes as JSON, more than " + MAX_PROPERTIES_BYTES + " (Batch.MAX_PROPERTIES_BYTES): keep "
                        + "large data in your tables and put its key in a property");
            }
            return new Batch(this);
        }

        private static int jsonLength(@Nullable String text) {
            return (text != null) ? text.getBytes(StandardCharsets.UTF_8).length + 2 : 4;
        }
    }
}
