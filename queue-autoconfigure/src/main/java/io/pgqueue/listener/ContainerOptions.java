package io.pgqueue.listener;

import java.time.Duration;
import java.util.Objects;

import io.pgqueue.listener.error.ExponentialBackoff;
import io.pgqueue.model.DeliveryMode;
import org.jspecify.annotations.Nullable;

/**
 * The resolved settings of one listener container. Immutable; build with {@link #builder()}.
 */
public final class ContainerOptions {

    /** Listener defaults: {@code pgqueue.listener.*} starts from these, and so does {@link #builder()}. */
    public static final DeliveryMode DEFAULT_MODE = DeliveryMode.LEASE;

    public static final int DEFAULT_CONCURRENCY = 4;

    public static final int DEFAULT_BATCH_SIZE = 10;

    public static final int DEFAULT_MAX_ATTEMPTS = 5;

    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

    public static final GroupFailurePolicy DEFAULT_GROUP_FAILURE = GroupFailurePolicy.BLOCK;

    private final String id;

    private final String queue;

    private final DeliveryMode mode;

    private final int concurrency;

    private final int batchSize;

    private final int maxAttempts;

    private final Duration pollInterval;

    private final ExponentialBackoff backoff;

    private final boolean autoStartup;

    private final @Nullable Integer maxRunning;

    private final @Nullable RateLimit rate;

    private final GroupFailurePolicy groupFailure;

    private final @Nullable Duration timeout;

    private final @Nullable Fairness fairness;

    private final WorkerThreads workerThreads;

    private final int prefetch;

    private ContainerOptions(Builder builder) {
        this.id = Objects.requireNonNull(builder.id, "id");
        this.queue = Objects.requireNonNull(builder.queue, "queue");
        this.mode = builder.mode;
        this.concurrency = positive(builder.concurrency, "concurrency");
        this.batchSize = positive(builder.batchSize, "batchSize");
        this.maxAttempts = positive(builder.maxAttempts, "maxAttempts");
        this.pollInterval = Objects.requireNonNull(builder.pollInterval, "pollInterval");
        this.backoff = Objects.requireNonNull(builder.backoff, "backoff");
        this.autoStartup = builder.autoStartup;
        this.maxRunning = (builder.maxRunning != null) ? positive(builder.maxRunning, "maxRunning") : null;
        this.rate = builder.rate;
        this.groupFailure = Objects.requireNonNull(builder.groupFailure, "groupFailure");
        if (builder.timeout != null && (builder.timeout.isNegative() || builder.timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive: " + builder.timeout);
        }
        this.timeout = builder.timeout;
        this.fairness = builder.fairness;
        this.workerThreads = Objects.requireNonNull(builder.workerThreads, "workerThreads");
        if (builder.prefetch < 0) {
            throw new IllegalArgumentException("prefetch must be at least 0, was " + builder.prefetch);
        }
        this.prefetch = builder.prefetch;
        if (workerThreads == WorkerThreads.VIRTUAL && !WorkerThreads.virtualSupported()) {
            throw new IllegalArgumentException("virtual worker threads need Java 21 or later; this JVM is Java "
                    + Runtime.version().feature());
        }
        if (mode == DeliveryMode.TRANSACTIONAL && (maxRunning != null || rate != null)) {
            throw new IllegalArgumentException("max-running and rate need LEASE delivery: a TRANSACTIONAL job is "
                    + "not visible as running while its transaction is open");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().id(id)
            .queue(queue)
            .mode(mode)
            .concurrency(concurrency)
            .batchSize(batchSize)
            .maxAttempts(maxAttempts)
            .pollInterval(pollInterval)
            .backoff(backoff)
            .autoStartup(autoStartup)
            .maxRunning(maxRunning)
            .rate(rate)
            .groupFailure(groupFailure)
            .timeout(timeout)
            .fairness(fairness)
            .workerThreads(workerThreads)
            .prefetch(prefetch);
    }

    /**
     * Jobs a LEASE container claims beyond its free workers, to have them at hand when a worker frees up: they
     * wait in memory under their lease (renewed like any running job's, given back at shutdown). 0 (the
     * default): a claim never takes more jobs than there are free workers. TRANSACTIONAL containers and batch
     * listeners do not prefetch.
     */
    public int prefetch() {
        return prefetch;
    }

    /** The threads handlers run on. */
    public WorkerThreads workerThreads() {
        return workerThreads;
    }

    /** How the queue's workers are shared among fairness keys, or null when the queue is not fair. */
    public @Nullable Fairness fairness() {
        return fairness;
    }

    /** The most a handler may run on one job (or one batch), unless the job has its own; null for none. */
    public @Nullable Duration timeout() {
        return timeout;
    }

    public String id() {
        return id;
    }

    public String queue() {
        return queue;
    }

    public DeliveryMode mode() {
        return mode;
    }

    /** Handlers running at once: worker threads of a LEASE container, transactions of a TRANSACTIONAL one. */
    public int concurrency() {
        return concurrency;
    }

    /** Most jobs claimed by one statement (one transaction in TRANSACTIONAL mode; one call of a batch listener). */
    public int batchSize() {
        return batchSize;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public Duration pollInterval() {
        return pollInterval;
    }

    public ExponentialBackoff backoff() {
        return backoff;
    }

    public boolean autoStartup() {
        return autoStartup;
    }

    /** Most jobs of the queue running at once across the cluster, or null for no cap. */
    public @Nullable Integer maxRunning() {
        return maxRunning;
    }

    /** Most job starts of the queue per window across the cluster, or null for no limit. */
    public @Nullable RateLimit rate() {
        return rate;
    }

    public GroupFailurePolicy groupFailure() {
        return groupFailure;
    }

    /** Whether claims go through the serialised, throttled path. */
    public boolean throttled() {
        return maxRunning != null || rate != null;
    }

    /** Whether two containers on one queue would treat its jobs the same way. */
    public boolean sameDeliveryAs(ContainerOptions other) {
        return queue.equals(other.queue) && mode == other.mode && batchSize == other.batchSize
                && maxAttempts == other.maxAttempts && Objects.equals(timeout, other.timeout) && backoff.equals(other.backoff)
                && Objects.equals(maxRunning, other.maxRunning) && Objects.equals(rate, other.rate)
                && groupFailure == other.groupFailure && Objects.equals(fairness, other.fairness);
    }

    @Override
    public String toString() {
        return "ContainerOptions[id=" + id + ", queue=" + queue + ", mode=" + mode + ", concurrency=" + concurrency
                + ", batchSize=" + batchSize + ", maxAttempts=" + maxAttempts + ", timeout=" + timeout + ", pollInterval=" + pollInterval
                + ", backoff=" + backoff + ", autoStartup=" + autoStartup + ", maxRunning=" + maxRunning + ", rate="
                + rate + ", groupFailure=" + groupFailure + ", fairness=" + fairness + ", workerThreads=" + workerThreads + ", prefetch=" + prefetch + "]";
    }

    private static int positive(int value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
        return value;
    }

    /** Builder for {@link ContainerOptions}. */
    public static final class Builder {

        private String id;

        private String queue;

        private DeliveryMode mode = DEFAULT_MODE;

        private int concurrency = DEFAULT_CONCURRENCY;

        private int batchSize = DEFAULT_BATCH_SIZE;

        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

        private @Nullable Duration timeout;

        private Duration pollInterval = DEFAULT_POLL_INTERVAL;

        private ExponentialBackoff backoff = ExponentialBackoff.DEFAULT;

        private boolean autoStartup = true;

        private @Nullable Integer maxRunning;

        private @Nullable RateLimit rate;

        private @Nullable Fairness fairness;

        private GroupFailurePolicy groupFailure = DEFAULT_GROUP_FAILURE;

        private WorkerThreads workerThreads = WorkerThreads.PLATFORM;

        private int prefetch;

        private Builder() {
        }

        /** Jobs a LEASE container claims beyond its free workers (0: none); see {@link ContainerOptions#prefetch()}. */
        public Builder prefetch(int prefetch) {
            this.prefetch = prefetch;
            return this;
        }

        public Builder maxRunning(@Nullable Integer maxRunning) {
            this.maxRunning = maxRunning;
            return this;
        }

        /** Shares the queue's workers among fairness keys (null: claims in plain priority and time order). */
        public Builder fairness(@Nullable Fairness fairness) {
            this.fairness = fairness;
            return this;
        }

        public Builder rate(@Nullable RateLimit rate) {
            this.rate = rate;
            return this;
        }

        public Builder groupFailure(GroupFailurePolicy groupFailure) {
            this.groupFailure = groupFailure;
            return this;
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        public Builder mode(DeliveryMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** The most a handler may run on one job (or one batch); null for no limit. */
        public Builder timeout(@Nullable Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        public Builder backoff(ExponentialBackoff backoff) {
            this.backoff = backoff;
            return this;
        }

        /** The threads handlers run on: {@link WorkerThreads#VIRTUAL} needs Java 21 or later. */
        public Builder workerThreads(WorkerThreads workerThreads) {
            this.workerThreads = workerThreads;
            return this;
        }

        public Builder autoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
            return this;
        }

        public ContainerOptions build() {
            return new ContainerOptions(this);
        }
    }
}
