package io.pgqueue.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgqueue.internal.routing.IdBlocks;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.GroupFailurePolicy;
import io.pgqueue.listener.WorkerThreads;
import io.pgqueue.listener.RateLimit;
import io.pgqueue.listener.error.ExponentialBackoff;
import io.pgqueue.model.DeliveryMode;
import io.pgqueue.model.MissedTickPolicy;
import io.pgqueue.model.QueueNames;
import io.pgqueue.schedule.RecurringJob;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of pgqueue, bound from {@code pgqueue.*}. Invalid values fail startup with an
 * {@link InvalidConfigurationPropertyValueException} naming the property.
 */
@ConfigurationProperties(prefix = "pgqueue")
public class PgQueueProperties implements InitializingBean, EnvironmentAware {

    /**
     * Whether pgqueue is enabled.
     */
    private boolean enabled = true;

    /**
     * Whether a key under pgqueue that no setting reads (a misspelt property) fails startup, naming the key and
     * the closest property; when false it is logged as a warning. Environment variables and JVM system
     * properties are not checked.
     */
    private boolean failOnUnknownProperties = true;

    private @Nullable Environment environment;

    /**
     * Longest time any of pgqueue's own statements may run, waits for locks included, before pgqueue cancels
     * it (a claim, an acknowledgement, a send, maintenance); 0 for no bound. Handlers' own statements are not
     * affected. Rounded up to whole seconds; checked twice a second, so the cancel comes up to half a second late.
     */
    private Duration statementTimeout = Duration.ofSeconds(60);

    private final Schema schema = new Schema();

    private final Template template = new Template();

    private final Listener listener = new Listener();

    private final Metrics metrics = new Metrics();

    private final Counters counters = new Counters();

    private final Health health = new Health();

    private final Maintenance maintenance = new Maintenance();

    private final Durable durable = new Durable();

    private final History history = new History();

    private final Retention retention = new Retention();

    private final Scheduler scheduler = new Scheduler();

    /**
     * Recurring jobs, keyed by name: each tick enqueues one job into its queue, once across the cluster.
     */
    private final Map<String, Schedule> schedules = new LinkedHashMap<>();

    /**
     * Per-queue settings, keyed by queue name; they override pgqueue.listener.* for that queue's listeners.
     */
    private final Map<String, Queue> queues = new LinkedHashMap<>();

    /**
     * Further PostgreSQL databases, keyed by name, each holding the queues it lists; queues not listed live in
     * the application's DataSource (the database named "default").
     */
    private final Map<String, Database> databases = new LinkedHashMap<>();

    /**
     * A read replica of the application's database, for the listings of the admin API, the endpoint and the
     * dashboard; claims, sends and acknowledgements never use it.
     */
    private final Replica replica = new Replica();

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void afterPropertiesSet() {
        validate();
        if (environment instanceof ConfigurableEnvironment configurable) {
            List<String> unknown = UnknownProperties.find(configurable, PgQueueProperties.class);
            if (!unknown.isEmpty()) {
                String message = "Unknown pgqueue propert" + ((unknown.size() == 1) ? "y " : "ies ")
                        + String.join("; ", unknown) + ". No setting of pgqueue reads "
                        + ((unknown.size() == 1) ? "it" : "them") + " (see docs/configuration.md); set "
                        + "pgqueue.fail-on-unknown-properties=false to start anyway with a warning";
                if (failOnUnknownProperties) {
                    throw new IllegalStateException(message);
                }
                org.apache.commons.logging.LogFactory.getLog(PgQueueProperties.class).warn(message);
            }
        }
    }

    public boolean isFailOnUnknownProperties() {
        return failOnUnknownProperties;
    }

    public void setFailOnUnknownProperties(boolean failOnUnknownProperties) {
        this.failOnUnknownProperties = failOnUnknownProperties;
    }

    /** Checks every value and throws naming the first invalid property. */
    public void validate() {
        check("pgqueue.schema.name", schema.getName(), () -> io.pgqueue.internal.persistence.Schema.validateIdentifier(schema.getName()));
        check("pgqueue.schema.history-table", schema.getHistoryTable(),
                () -> io.pgqueue.internal.persistence.Schema.validateIdentifier(schema.getHistoryTable()));
        if (statementTimeout.isNegative()) {
            throw new InvalidConfigurationPropertyValueException("pgqueue.statement-timeout", statementTimeout,
                    "must be zero (no bound) or longer");
        }
        atLeast("pgqueue.template.max-payload-size", template.getMaxPayloadSize().toBytes(), 1);
        atLeast("pgqueue.template.batch-chunk-size", template.getBatchChunkSize(), 1);
        listener.validate("pgqueue.listener");
        positive("pgqueue.metrics.refresh-interval", metrics.getRefreshInterval());
        positive("pgqueue.health.max-lag", health.getMaxLag());
        positive("pgqueue.health.vacuum-hold-warning", health.getVacuumHoldWarning());
        positive("pgqueue.health.vacuum-check-interval", health.getVacuumCheckInterval());
        positive("pgqueue.health.unattended-after", health.getUnattendedAfter());
        positive("pgqueue.health.response-timeout", health.getResponseTimeout());
        positive("pgqueue.maintenance.interval", maintenance.getInterval());
        positive("pgqueue.durable.event-retention", durable.getEventRetention());
        positive("pgqueue.durable.child-recheck", durable.getChildRecheck());
        positive("pgqueue.schema.lock-timeout", schema.getLockTimeout());
        if (schema.getLockAttempts() < 1) {
            throw new InvalidConfigurationPropertyValueException("pgqueue.schema.lock-attempts",
                    schema.getLockAttempts(), "must be at least 1");
        }
        positive("pgqueue.maintenance.reconcile-interval", maintenance.getReconcileInterval());
        positive("pgqueue.history.retention", history.getRetention());
        Duration partition = history.getPartitionInterval();
        if (partition.toMinutes() % 60 != 0 || partition.toHours() < 1
                || (partition.toHours() < 24 ? 24 % partition.toHours() != 0 : partition.toHours() % 24 != 0)
                || partition.toMillis() % 3_600_000 != 0) {
            throw new InvalidConfigurationPropertyValueException("pgqueue.history.partition-interval", partition,
                    "must be whole hours dividing a day (1h, 2h, 3h, 4h, 6h, 8h, 12h) or whole days");
        }
        atLeast("pgqueue.history.partitions-ahead", history.getPartitionsAhead(), 1);
        positive("pgqueue.retention.dead", retention.getDead());
        positive("pgqueue.retention.workflows", retention.getWorkflows());
        positive("pgqueue.retention.batches", retention.getBatches());
        positive("pgqueue.retention.interval", retention.getInterval());
        atLeast("pgqueue.retention.batch-size", retention.getBatchSize(), 1);
        positive("pgqueue.scheduler.poll-interval", scheduler.getPollInterval());
        schedules.forEach((name, schedule) -> schedule.validate("pgqueue.schedules." + name, name));
        queues.forEach((name, settings) -> {
            check("pgqueue.queues", name, () -> QueueNames.validate(name));
            settings.validate("pgqueue.queues." + name);
        });
        Database.validateAll(databases);
        replica.validate("pgqueue.replica");
    }

    static void positive(String property, @Nullable Duration value) {
        if (value != null && (value.isNegative() || value.isZero())) {
            throw new InvalidConfigurationPropertyValueException(property, value, "must be longer than zero");
        }
    }

    static void check(String property, Object value, Runnable validation) {
        try {
            validation.run();
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(property, value, ex.getMessage());
        }
    }

    static void atLeast(String property, long value, long minimum) {
        if (value < minimum) {
            throw new InvalidConfigurationPropertyValueException(property, value, "must be at least " + minimum);
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public Duration getStatementTimeout() {
        return statementTimeout;
    }

    public void setStatementTimeout(Duration statementTimeout) {
        this.statementTimeout = statementTimeout;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Schema getSchema() {
        return schema;
    }

    public Template getTemplate() {
        return template;
    }

    public Listener getListener() {
        return listener;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Counters getCounters() {
        return counters;
    }

    public Health getHealth() {
        return health;
    }

    public Maintenance getMaintenance() {
        return maintenance;
    }

    public Durable getDurable() {
        return durable;
    }

    public History getHistory() {
        return history;
    }

    public Retention getRetention() {
        return retention;
    }

    public Scheduler getScheduler() {
        return scheduler;
    }

    public Map<String, Schedule> getSchedules() {
        return schedules;
    }

    public Map<String, Queue> getQueues() {
        return queues;
    }

    public Map<String, Database> getDatabases() {
        return databases;
    }

    public Replica getReplica() {
        return replica;
    }

    /** The name of the database a queue lives in: the one of {@link #getDatabases()} listing it, else the default. */
    public String databaseOf(String queue) {
        for (Map.Entry<String, Database> database : databases.entrySet()) {
            if (database.getValue().getQueues().contains(queue)) {
                return database.getKey();
            }
        }
        return Database.DEFAULT;
    }

    /** Where the queue tables live and whether pgqueue creates them. */
    public static class Schema {

        /**
         * PostgreSQL schema holding the queue tables: a lower-case identifier of 1 to 63 characters from
         * [a-z0-9_].
         */
        private String name = "pgqueue";

        /**
         * Whether to apply pgqueue's bundled migrations at startup with a private Flyway. When false, startup
         * checks that the tables exist and fails with instructions otherwise.
         */
        private boolean migrate = true;

        /**
         * Name of pgqueue's own Flyway history table, created in the queue schema.
         */
        private String historyTable = "pgqueue_schema_history";

        /**
         * Longest wait of one migration attempt for a lock on a table (the migration's own lock_timeout). A
         * migration waiting for a table lock blocks all queue traffic behind it; past this it gives up, rolls
         * back and tries again, letting the traffic through in between.
         */
        private Duration lockTimeout = Duration.ofSeconds(5);

        /**
         * How many times a migration that could not get its locks within the lock timeout is tried before
         * startup fails.
         */
        private int lockAttempts = 12;

        public Duration getLockTimeout() {
            return lockTimeout;
        }

        public void setLockTimeout(Duration lockTimeout) {
            this.lockTimeout = lockTimeout;
        }

        public int getLockAttempts() {
            return lockAttempts;
        }

        public void setLockAttempts(int lockAttempts) {
            this.lockAttempts = lockAttempts;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public boolean isMigrate() {
            return migrate;
        }

        public void setMigrate(boolean migrate) {
            this.migrate = migrate;
        }

        public String getHistoryTable() {
            return historyTable;
        }

        public void setHistoryTable(String historyTable) {
            this.historyTable = historyTable;
        }
    }

    /** Publishing with QueueTemplate. */
    public static class Template {

        /**
         * Largest payload accepted by send, measured as UTF-8 JSON. Larger payloads are rejected with their
         * size.
         */
        private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

        /**
         * Most jobs inserted by one statement of sendBatch; larger batches use several statements.
         */
        private int batchChunkSize = 10_000;

        /**
         * Whether sends are observed (Micrometer Observation "pgqueue.send" in the application's
         * ObservationRegistry), writing the trace context into the jobs' headers.
         */
        private boolean observationEnabled;

        public boolean isObservationEnabled() {
            return observationEnabled;
        }

        public void setObservationEnabled(boolean observationEnabled) {
            this.observationEnabled = observationEnabled;
        }

        public DataSize getMaxPayloadSize() {
            return maxPayloadSize;
        }

        public void setMaxPayloadSize(DataSize maxPayloadSize) {
            this.maxPayloadSize = maxPayloadSize;
        }

        public int getBatchChunkSize() {
            return batchChunkSize;
        }

        public void setBatchChunkSize(int batchChunkSize) {
            this.batchChunkSize = batchChunkSize;
        }
    }

    /** Retry spacing: initial * multiplier^(attempt-1), at most max, randomised by +/- jitter. */
    public static class Backoff {

        /**
         * Delay before the second attempt.
         */
        private @Nullable Duration initial;

        /**
         * Growth of the delay per attempt, at least 1.
         */
        private @Nullable Double multiplier;

        /**
         * Largest delay between attempts.
         */
        private @Nullable Duration max;

        /**
         * Fraction of each delay to randomise, from 0 (none) to below 1.
         */
        private @Nullable Double jitter;

        public @Nullable Duration getInitial() {
            return initial;
        }

        public void setInitial(@Nullable Duration initial) {
            this.initial = initial;
        }

        public @Nullable Double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(@Nullable Double multiplier) {
            this.multiplier = multiplier;
        }

        public @Nullable Duration getMax() {
            return max;
        }

        public void setMax(@Nullable Duration max) {
            this.max = max;
        }

        public @Nullable Double getJitter() {
            return jitter;
        }

        public void setJitter(@Nullable Double jitter) {
            this.jitter = jitter;
        }

        void validate(String prefix) {
            if (initial != null && initial.isNegative()) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".initial", initial, "must not be negative");
            }
            if (multiplier != null && multiplier < 1.0) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".multiplier", multiplier,
                        "must be at least 1");
            }
            positive(prefix + ".max", max);
            if (jitter != null && (jitter < 0.0 || jitter >= 1.0)) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".jitter", jitter,
                        "must be at least 0 and below 1");
            }
        }
    }

    /** Settings of one queue's listeners; unset values come from pgqueue.listener.*. */
    public static class QueueSettings {

        /**
         * Handlers running at once per container of this queue.
         */
        private @Nullable Integer concurrency;

        /**
         * Most jobs claimed per statement; for a List<T> listener, the most jobs per call.
         */
        private @Nullable Integer batchSize;

        /**
         * Delivery mode of this queue's listeners: lease or transactional.
         */
        private @Nullable DeliveryMode mode;

        /**
         * Attempts before a job goes dead.
         */
        private @Nullable Integer maxAttempts;

        /**
         * The most a handler may run on one job (a batch listener: on one batch); past it the handler's
         * thread is interrupted and the attempt fails with a timeout. Unset: no limit. A job sent with its own
         * timeout keeps that.
         */
        private @Nullable Duration timeout;

        public @Nullable Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(@Nullable Duration timeout) {
            this.timeout = timeout;
        }

        /**
         * Wait between polls when the last poll found less than a full batch and no NOTIFY arrived.
         */
        private @Nullable Duration pollInterval;

        private final Backoff backoff = new Backoff();

        /**
         * Most jobs of the queue running at once across all nodes (LEASE delivery). Unset: no cap.
         */
        private @Nullable Integer maxRunning;

        /**
         * Most job starts of the queue per window across all nodes, as permits/window, e.g. 100/1s (LEASE
         * delivery). Unset: no limit.
         */
        private @Nullable String rate;

        /**
         * What a failed job waiting for its retry does to the later jobs of its group key: block (keep
         * order) or skip.
         */
        private @Nullable GroupFailurePolicy groupFailure;

        /**
         * The threads handlers run on: platform or virtual (Java 21 or later). Unset: virtual when
         * spring.threads.virtual.enabled is true on Java 21 or later, else platform.
         */
        private @Nullable WorkerThreads workerThreads;

        /**
         * Jobs a LEASE container claims beyond its free workers, so that a worker that frees up finds its next
         * job in memory instead of waiting for a claim; they wait under their lease, which the heartbeat renews,
         * and are given back at shutdown. Unset: 0, a claim takes at most the free workers. Not used by
         * TRANSACTIONAL containers or batch listeners.
         */
        private @Nullable Integer prefetch;

        public @Nullable Integer getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(@Nullable Integer prefetch) {
            this.prefetch = prefetch;
        }

        public @Nullable WorkerThreads getWorkerThreads() {
            return workerThreads;
        }

        public void setWorkerThreads(@Nullable WorkerThreads workerThreads) {
            this.workerThreads = workerThreads;
        }

        public @Nullable Integer getMaxRunning() {
            return maxRunning;
        }

        public void setMaxRunning(@Nullable Integer maxRunning) {
            this.maxRunning = maxRunning;
        }

        public @Nullable String getRate() {
            return rate;
        }

        public void setRate(@Nullable String rate) {
            this.rate = rate;
        }

        public @Nullable GroupFailurePolicy getGroupFailure() {
            return groupFailure;
        }

        public void setGroupFailure(@Nullable GroupFailurePolicy groupFailure) {
            this.groupFailure = groupFailure;
        }

        public @Nullable Integer getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(@Nullable Integer concurrency) {
            this.concurrency = concurrency;
        }

        public @Nullable Integer getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(@Nullable Integer batchSize) {
            this.batchSize = batchSize;
        }

        public @Nullable DeliveryMode getMode() {
            return mode;
        }

        public void setMode(@Nullable DeliveryMode mode) {
            this.mode = mode;
        }

        public @Nullable Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(@Nullable Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public @Nullable Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(@Nullable Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public Backoff getBackoff() {
            return backoff;
        }

        void validate(String prefix) {
            if (concurrency != null) {
                atLeast(prefix + ".concurrency", concurrency, 1);
            }
            if (batchSize != null) {
                atLeast(prefix + ".batch-size", batchSize, 1);
            }
            if (maxAttempts != null) {
                atLeast(prefix + ".max-attempts", maxAttempts, 1);
            }
            if (prefetch != null) {
                atLeast(prefix + ".prefetch", prefetch, 0);
            }
            positive(prefix + ".timeout", timeout);
            positive(prefix + ".poll-interval", pollInterval);
            backoff.validate(prefix + ".backoff");
            if (maxRunning != null) {
                atLeast(prefix + ".max-running", maxRunning, 1);
            }
            if (rate != null) {
                check(prefix + ".rate", rate, () -> RateLimit.parse(rate));
            }
        }
    }

    /** One queue's settings: those of its listeners, and its fairness. */
    public static class Queue extends QueueSettings {

        private final Fairness fairness = new Fairness();

        public Fairness getFairness() {
            return fairness;
        }

        @Override
        void validate(String prefix) {
            super.validate(prefix);
            fairness.validate(prefix + ".fairness");
        }
    }

    /**
     * Fairness inside one queue ({@code pgqueue.queues.<name>.fairness.*}): its listeners share their workers
     * among the jobs' fairness keys by weight. A queue is fair when enabled, or when weights or caps are set.
     */
    public static class Fairness {

        /**
         * Whether the queue's listeners share their workers among fairness keys (weights or caps set imply it).
         */
        private boolean enabled;

        /**
         * Weight of each key named here (e.g. tenant-42: 3); a weight set at run time through QueueAdmin wins.
         */
        private Map<String, Double> weights = new LinkedHashMap<>();

        /**
         * Weight of the keys without one.
         */
        private double defaultWeight = 1.0;

        /**
         * Most running jobs of any one key across the cluster. Unset: no cap.
         */
        private @Nullable Integer maxRunningPerKey;

        /**
         * Most running jobs of each key named here across the cluster, instead of max-running-per-key.
         */
        private Map<String, Integer> maxRunning = new LinkedHashMap<>();

        /**
         * Most keys one claim looks at (at least the claim's batch): more spreads a claim over more keys, at
         * the cost of one index probe per key.
         */
        private int keysPerClaim = 16;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Map<String, Double> getWeights() {
            return weights;
        }

        public void setWeights(Map<String, Double> weights) {
            this.weights = weights;
        }

        public double getDefaultWeight() {
            return defaultWeight;
        }

        public void setDefaultWeight(double defaultWeight) {
            this.defaultWeight = defaultWeight;
        }

        public @Nullable Integer getMaxRunningPerKey() {
            return maxRunningPerKey;
        }

        public void setMaxRunningPerKey(@Nullable Integer maxRunningPerKey) {
            this.maxRunningPerKey = maxRunningPerKey;
        }

        public Map<String, Integer> getMaxRunning() {
            return maxRunning;
        }

        public void setMaxRunning(Map<String, Integer> maxRunning) {
            this.maxRunning = maxRunning;
        }

        public int getKeysPerClaim() {
            return keysPerClaim;
        }

        public void setKeysPerClaim(int keysPerClaim) {
            this.keysPerClaim = keysPerClaim;
        }

        /** Whether the queue is fair: enabled, or given weights or caps. */
        public boolean isFair() {
            return enabled || !weights.isEmpty() || maxRunningPerKey != null || !maxRunning.isEmpty();
        }

        void validate(String prefix) {
            weights.forEach((key, weight) -> {
                if (weight == null || !(weight > 0) || weight.isInfinite()) {
                    throw new InvalidConfigurationPropertyValueException(prefix + ".weights." + key, weight,
                            "must be a number above zero");
                }
            });
            if (!(defaultWeight > 0) || Double.isInfinite(defaultWeight)) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".default-weight", defaultWeight,
                        "must be a number above zero");
            }
            if (maxRunningPerKey != null) {
                atLeast(prefix + ".max-running-per-key", maxRunningPerKey, 1);
            }
            maxRunning.forEach((key, cap) -> atLeast(prefix + ".max-running." + key, (cap != null) ? cap : 0, 1));
            atLeast(prefix + ".keys-per-claim", keysPerClaim, 1);
        }
    }

    /** Defaults for every listener container, and this node's timing. */
    public static class Listener extends QueueSettings {

        /**
         * Whether listener containers start with the application.
         */
        private boolean autoStartup = true;

        /**
         * How long a LEASE job stays claimed without a heartbeat renewing it.
         */
        private Duration leaseDuration = Duration.ofSeconds(60);

        /**
         * How often this node marks itself alive, renews the leases of its running jobs and looks for jobs to
         * rescue.
         */
        private Duration heartbeatInterval = Duration.ofSeconds(5);

        /**
         * Age of a node's last heartbeat after which it counts as gone and its running jobs are released.
         */
        private Duration nodeTimeout = Duration.ofSeconds(30);

        /**
         * How long stopping containers let running handlers finish before releasing their jobs.
         */
        private Duration shutdownTimeout = Duration.ofSeconds(30);

        /**
         * How long a handler interrupted for its timeout or its cancellation may go on before it counts as
         * stuck: a LEASE job's lease is then no longer renewed, so that the job is rescued (its attempt counted)
         * or finished as cancelled, and health lists the stuck run.
         */
        private Duration interruptGrace = Duration.ofSeconds(30);

        /**
         * Whether a LEASE claim waits for its commit to be flushed to disk. By default it commits asynchronously
         * (synchronous_commit=off for that transaction alone): a crash of the PostgreSQL server can then lose the
         * claims of its last ~0.6 s, whose jobs run a second time while their first run goes on. Durable claims
         * rule that out at the cost of a WAL flush per claim (13% fewer jobs/s in claims of 100, 30% in claims
         * of 10, measured).
         */
        private boolean durableClaims;

        public boolean isDurableClaims() {
            return durableClaims;
        }

        public void setDurableClaims(boolean durableClaims) {
            this.durableClaims = durableClaims;
        }

        public Duration getInterruptGrace() {
            return interruptGrace;
        }

        public void setInterruptGrace(Duration interruptGrace) {
            this.interruptGrace = interruptGrace;
        }

        /**
         * Whether to use LISTEN/NOTIFY for wake-ups (publishers notify, listeners listen). Turn off behind
         * PgBouncer in transaction pooling mode; listeners of the sending application are still woken
         * in-process, others find jobs by polling within the poll interval.
         */
        private boolean notify = true;

        /**
         * JDBC URL of a direct connection to the database (not through a transaction pooler), used only to
         * LISTEN for wake-ups and cancellations; every other statement goes through the application's
         * DataSource. Set it when that DataSource reaches PostgreSQL through PgBouncer in transaction mode,
         * Supavisor or Neon's pooled endpoint. Checked at startup: a NOTIFY sent through the DataSource must
         * arrive on it.
         */
        private @Nullable String notifyUrl;

        /**
         * Login user of the notify-url connection; by default the application DataSource's (a Hikari pool's,
         * or spring.datasource.username).
         */
        private @Nullable String notifyUsername;

        /**
         * Login password of the notify-url connection; by default the application DataSource's.
         */
        private @Nullable String notifyPassword;

        /**
         * Name of a DataSource bean that gives direct connections, used only to LISTEN; instead of notify-url.
         */
        private @Nullable String notifyDataSource;

        /**
         * Whether handler runs are observed (Micrometer Observation "pgqueue.process" in the application's
         * ObservationRegistry), continuing the trace context the job was sent with.
         */
        private boolean observationEnabled;

        public boolean isObservationEnabled() {
            return observationEnabled;
        }

        public void setObservationEnabled(boolean observationEnabled) {
            this.observationEnabled = observationEnabled;
        }

        /**
         * Shortest time between two notifications for one queue from this JVM; a notification skipped by
         * the debounce is sent once the window ends.
         */
        private Duration notifyDebounce = Duration.ofMillis(10);

        /**
         * Comma-separated list of exception types that send a job dead at once instead of retrying it.
         */
        private List<Class<? extends Throwable>> notRetryable = new ArrayList<>();

        /**
         * Packages (with their sub-packages) whose classes a listener declared with Object, an interface or an
         * abstract type may receive as the type recorded with a job, beside the listener's own package and
         * plain JDK value types. Other recorded types send the job dead instead of being instantiated.
         */
        private List<String> trustedPackages = new ArrayList<>();

        public Listener() {
            setConcurrency(ContainerOptions.DEFAULT_CONCURRENCY);
            setBatchSize(ContainerOptions.DEFAULT_BATCH_SIZE);
            setMode(ContainerOptions.DEFAULT_MODE);
            setMaxAttempts(ContainerOptions.DEFAULT_MAX_ATTEMPTS);
            setPollInterval(ContainerOptions.DEFAULT_POLL_INTERVAL);
            setGroupFailure(ContainerOptions.DEFAULT_GROUP_FAILURE);
            getBackoff().setInitial(ExponentialBackoff.DEFAULT.initial());
            getBackoff().setMultiplier(ExponentialBackoff.DEFAULT.multiplier());
            getBackoff().setMax(ExponentialBackoff.DEFAULT.max());
            getBackoff().setJitter(ExponentialBackoff.DEFAULT.jitter());
        }

        public boolean isAutoStartup() {
            return autoStartup;
        }

        public List<String> getTrustedPackages() {
            return trustedPackages;
        }

        public void setTrustedPackages(List<String> trustedPackages) {
            this.trustedPackages = trustedPackages;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public Duration getLeaseDuration() {
            return leaseDuration;
        }

        public void setLeaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
        }

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public Duration getNodeTimeout() {
            return nodeTimeout;
        }

        public void setNodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = nodeTimeout;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public boolean isNotify() {
            return notify;
        }

        public void setNotify(boolean notify) {
            this.notify = notify;
        }

        public Duration getNotifyDebounce() {
            return notifyDebounce;
        }

        public @Nullable String getNotifyUrl() {
            return notifyUrl;
        }

        public void setNotifyUrl(@Nullable String notifyUrl) {
            this.notifyUrl = notifyUrl;
        }

        public @Nullable String getNotifyUsername() {
            return notifyUsername;
        }

        public void setNotifyUsername(@Nullable String notifyUsername) {
            this.notifyUsername = notifyUsername;
        }

        public @Nullable String getNotifyPassword() {
            return notifyPassword;
        }

        public void setNotifyPassword(@Nullable String notifyPassword) {
            this.notifyPassword = notifyPassword;
        }

        public @Nullable String getNotifyDataSource() {
            return notifyDataSource;
        }

        public void setNotifyDataSource(@Nullable String notifyDataSource) {
            this.notifyDataSource = notifyDataSource;
        }

        /** The direct connection for LISTEN, as configured (nothing set: LISTEN through the DataSource). */
        public NotifyConnection notifyConnection() {
            return new NotifyConnection(notifyUrl, notifyUsername, notifyPassword, notifyDataSource);
        }

        public void setNotifyDebounce(Duration notifyDebounce) {
            this.notifyDebounce = notifyDebounce;
        }

        public List<Class<? extends Throwable>> getNotRetryable() {
            return notRetryable;
        }

        public void setNotRetryable(List<Class<? extends Throwable>> notRetryable) {
            this.notRetryable = notRetryable;
        }

        @Override
        void validate(String prefix) {
            requireSet(prefix + ".concurrency", getConcurrency());
            requireSet(prefix + ".batch-size", getBatchSize());
            requireSet(prefix + ".mode", getMode());
            requireSet(prefix + ".max-attempts", getMaxAttempts());
            requireSet(prefix + ".poll-interval", getPollInterval());
            super.validate(prefix);
            positive(prefix + ".lease-duration", leaseDuration);
            positive(prefix + ".heartbeat-interval", heartbeatInterval);
            positive(prefix + ".interrupt-grace", interruptGrace);
            positive(prefix + ".node-timeout", nodeTimeout);
            if (shutdownTimeout.isNegative()) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".shutdown-timeout", shutdownTimeout,
                        "must not be negative");
            }
            if (notifyDebounce.isNegative()) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".notify-debounce", notifyDebounce,
                        "must not be negative");
            }
            notifyConnection().validate(prefix, notify, prefix + ".notify");
            if (heartbeatInterval.compareTo(leaseDuration) >= 0) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".heartbeat-interval",
                        heartbeatInterval, "must be shorter than " + prefix + ".lease-duration (" + leaseDuration + ")");
            }
            if (heartbeatInterval.compareTo(nodeTimeout) >= 0) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".heartbeat-interval",
                        heartbeatInterval, "must be shorter than " + prefix + ".node-timeout (" + nodeTimeout + ")");
            }
            requireSet(prefix + ".backoff.initial", getBackoff().getInitial());
            requireSet(prefix + ".backoff.multiplier", getBackoff().getMultiplier());
            requireSet(prefix + ".backoff.max", getBackoff().getMax());
            requireSet(prefix + ".backoff.jitter", getBackoff().getJitter());
        }

        private static void requireSet(String property, @Nullable Object value) {
            if (value == null) {
                throw new InvalidConfigurationPropertyValueException(property, null, "must be set");
            }
        }
    }

    /** Micrometer metrics. */
    public static class Metrics {

        /**
         * Whether to publish pgqueue metrics when Micrometer is present.
         */
        private boolean enabled = true;

        /**
         * How often the queue gauges re-read the counters (one query for all queues).
         */
        private Duration refreshInterval = Duration.ofSeconds(5);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }
    }

    /** The per-queue counters behind the gauges, the endpoint's counts and health. */
    public static class Counters {

        /**
         * Whether every state change maintains the counters. Off, statements skip their counter deltas
         * (slightly faster); the counts behind metrics, the endpoint and health are then not maintained.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The pgqueue health indicator. */
    public static class Health {

        /**
         * Lag (age of the oldest ready job) above which a queue makes the health status lag-status. Unset:
         * lag never affects health.
         */
        private @Nullable Duration maxLag;

        /**
         * Health status reported while a queue lags more than max-lag, e.g. OUT_OF_SERVICE or DOWN.
         */
        private String lagStatus = "OUT_OF_SERVICE";

        /**
         * How long a transaction, prepared transaction or replication slot may hold back vacuum in pgqueue's
         * database before health, the dashboard and the log warn about it (naming it, its age and its pid).
         */
        private Duration vacuumHoldWarning = Duration.ofMinutes(5);

        /**
         * How often each node looks for what holds back vacuum in pgqueue's database.
         */
        private Duration vacuumCheckInterval = Duration.ofSeconds(5);

        /**
         * Longest a health call waits for pgqueue's check (which reads every database). Past it, the call answers
         * with the status of the last check that finished and its age, so that a database that does not answer
         * cannot make probes time out.
         */
        private Duration responseTimeout = Duration.ofSeconds(2);

        /**
         * How long a queue's oldest ready job waits, while no node listens to the queue, before health lists the
         * queue under unattendedQueues (the status does not change) and logs it once: a listener that is not a
         * Spring bean, or that runs on no deployed application.
         */
        private Duration unattendedAfter = Duration.ofMinutes(1);

        public Duration getUnattendedAfter() {
            return unattendedAfter;
        }

        public void setUnattendedAfter(Duration unattendedAfter) {
            this.unattendedAfter = unattendedAfter;
        }

        public Duration getResponseTimeout() {
            return responseTimeout;
        }

        public void setResponseTimeout(Duration responseTimeout) {
            this.responseTimeout = responseTimeout;
        }

        public Duration getVacuumHoldWarning() {
            return vacuumHoldWarning;
        }

        public void setVacuumHoldWarning(Duration vacuumHoldWarning) {
            this.vacuumHoldWarning = vacuumHoldWarning;
        }

        public Duration getVacuumCheckInterval() {
            return vacuumCheckInterval;
        }

        public void setVacuumCheckInterval(Duration vacuumCheckInterval) {
            this.vacuumCheckInterval = vacuumCheckInterval;
        }

        public @Nullable Duration getMaxLag() {
            return maxLag;
        }

        public void setMaxLag(@Nullable Duration maxLag) {
            this.maxLag = maxLag;
        }

        public String getLagStatus() {
            return lagStatus;
        }

        public void setLagStatus(String lagStatus) {
            this.lagStatus = lagStatus;
        }
    }

    /** Durable execution inside jobs: steps, sleeps, events and awaited jobs (docs/durable-execution.md). */
    public static class Durable {

        /**
         * How long an emitted event is kept for jobs that await its key later, by default (QueueEvents.emit
         * without a retention, and the endpoint's emit).
         */
        private Duration eventRetention = Duration.ofDays(7);

        /**
         * How often a job awaiting another one looks at it when nothing told it that job finished (a job that went
         * dead by rescue, or was cancelled or purged, tells nobody).
         */
        private Duration childRecheck = Duration.ofSeconds(30);

        public Duration getEventRetention() {
            return eventRetention;
        }

        public void setEventRetention(Duration eventRetention) {
            this.eventRetention = eventRetention;
        }

        public Duration getChildRecheck() {
            return childRecheck;
        }

        public void setChildRecheck(Duration childRecheck) {
            this.childRecheck = childRecheck;
        }
    }

    /** Periodic, cluster-safe upkeep. */
    public static class Maintenance {

        /**
         * Whether this node runs maintenance (promoting due jobs of all queues, folding counter deltas,
         * reconciling counters).
         */
        private boolean enabled = true;

        /**
         * How often due scheduled jobs are promoted and counter deltas folded.
         */
        private Duration interval = Duration.ofSeconds(1);

        /**
         * How often the counters are checked against the job table (a full scan of it) and repaired.
         */
        private Duration reconcileInterval = Duration.ofHours(1);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public Duration getReconcileInterval() {
            return reconcileInterval;
        }

        public void setReconcileInterval(Duration reconcileInterval) {
            this.reconcileInterval = reconcileInterval;
        }
    }

    /** Copies of finished jobs. */
    public static class History {

        /**
         * Whether finished jobs are copied to the job_history table.
         */
        private boolean enabled;

        /**
         * How long finished jobs stay in job_history. Retention drops whole partitions, so a row stays up to one
         * partition interval longer.
         */
        private Duration retention = Duration.ofDays(7);

        /**
         * Span of one job_history partition: whole hours dividing a day, or whole days. Keep retention divided by
         * it within about a hundred partitions.
         */
        private Duration partitionInterval = Duration.ofDays(1);

        /**
         * How many job_history partitions past the current one are created ahead of time.
         */
        private int partitionsAhead = 3;

        public Duration getPartitionInterval() {
            return partitionInterval;
        }

        public void setPartitionInterval(Duration partitionInterval) {
            this.partitionInterval = partitionInterval;
        }

        public int getPartitionsAhead() {
            return partitionsAhead;
        }

        public void setPartitionsAhead(int partitionsAhead) {
            this.partitionsAhead = partitionsAhead;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }
    }

    /** Deleting old rows in bounded batches. */
    public static class Retention {

        /**
         * How long dead jobs are kept before they are deleted.
         */
        private Duration dead = Duration.ofDays(14);

        /**
         * How often old dead jobs and old history are deleted.
         */
        private Duration interval = Duration.ofMinutes(1);

        /**
         * Most rows deleted by one statement, so that no delete runs long.
         */
        private int batchSize = 1000;

        /**
         * How long a finished (completed or cancelled) workflow is kept, with its nodes' outputs and states,
         * before it is deleted.
         */
        private Duration workflows = Duration.ofDays(7);

        /**
         * How long a finished (succeeded, failed or cancelled) batch is kept, with its callbacks, once its members
         * and its callbacks' jobs all left the job table (a dead member keeps it).
         */
        private Duration batches = Duration.ofDays(7);

        public Duration getBatches() {
            return batches;
        }

        public void setBatches(Duration batches) {
            this.batches = batches;
        }

        public Duration getWorkflows() {
            return workflows;
        }

        public void setWorkflows(Duration workflows) {
            this.workflows = workflows;
        }

        public Duration getDead() {
            return dead;
        }

        public void setDead(Duration dead) {
            this.dead = dead;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /** Firing recurring jobs. */
    public static class Scheduler {

        /**
         * Whether this node fires recurring jobs (any node may fire any due schedule; each tick fires once).
         */
        private boolean enabled = true;

        /**
         * How often this node looks for due recurring jobs.
         */
        private Duration pollInterval = Duration.ofMillis(500);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }
    }

    /** One recurring job. */
    public static class Schedule {

        /**
         * Queue each tick's job goes to.
         */
        private @Nullable String queue;

        /**
         * Cron expression (six fields: second minute hour day month weekday); exclusive with fixed-rate.
         */
        private @Nullable String cron;

        /**
         * Fixed period between ticks, aligned to the epoch; exclusive with cron.
         */
        private @Nullable Duration fixedRate;

        /**
         * Time zone of the cron expression.
         */
        private String zone = "UTC";

        /**
         * Payload of each job, as JSON text.
         */
        private @Nullable String payload;

        /**
         * What to do about ticks missed while no node ran: fire-once (one job for the latest) or skip.
         */
        private MissedTickPolicy missed = MissedTickPolicy.FIRE_ONCE;

        public @Nullable String getQueue() {
            return queue;
        }

        public void setQueue(@Nullable String queue) {
            this.queue = queue;
        }

        public @Nullable String getCron() {
            return cron;
        }

        public void setCron(@Nullable String cron) {
            this.cron = cron;
        }

        public @Nullable Duration getFixedRate() {
            return fixedRate;
        }

        public void setFixedRate(@Nullable Duration fixedRate) {
            this.fixedRate = fixedRate;
        }

        public String getZone() {
            return zone;
        }

        public void setZone(String zone) {
            this.zone = zone;
        }

        public @Nullable String getPayload() {
            return payload;
        }

        public void setPayload(@Nullable String payload) {
            this.payload = payload;
        }

        public MissedTickPolicy getMissed() {
            return missed;
        }

        public void setMissed(MissedTickPolicy missed) {
            this.missed = missed;
        }

        void validate(String prefix, String name) {
            if (queue == null) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".queue", null, "must be set");
            }
            check(prefix + ".queue", queue, () -> QueueNames.validate(queue));
            if ((cron == null) == (fixedRate == null)) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".cron", cron,
                        "set exactly one of cron and fixed-rate");
            }
            if (cron != null) {
                check(prefix + ".cron", cron, () -> org.springframework.scheduling.support.CronExpression.parse(cron));
            }
            positive(prefix + ".fixed-rate", fixedRate);
            try {
                java.time.ZoneId.of(zone);
            }
            catch (java.time.DateTimeException ex) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".zone", zone, ex.getMessage());
            }
            check(prefix, name, () -> toRecurringJob(name));
        }

        /** The recurring job this entry declares; throws saying what is wrong. */
        public RecurringJob toRecurringJob(String name) {
            RecurringJob.Builder builder = RecurringJob.builder(name).zone(java.time.ZoneId.of(zone)).missed(missed);
            if (queue != null) {
                builder.queue(queue);
            }
            if (cron != null) {
                builder.cron(cron);
            }
            if (fixedRate != null) {
                builder.fixedRate(fixedRate);
            }
            return builder.payload(payload).build();
        }
    }

    /** A further PostgreSQL database and the queues it holds. */
    public static class Database extends PooledConnection {

        /** The name of the application's own DataSource among the databases. */
        public static final String DEFAULT = "default";

        private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[a-z][a-z0-9_-]{0,62}");

        /**
         * Stable number of this database, 1 to 32767: its jobs', workflows' and batches' ids are drawn from
         * [n * 2^48, (n + 1) * 2^48), so an id names its database. Never change it once the database holds jobs.
         */
        private int idBlock;

        /**
         * Queues that live in this database; every other queue lives in the default database.
         */
        private List<String> queues = new ArrayList<>();

        /**
         * A read replica of this database, for the listings of the admin API, the endpoint and the dashboard.
         */
        private final Replica replica = new Replica();

        /**
         * Most connections of the pool pgqueue builds for this database.
         */
        private int maximumPoolSize = 10;

        /**
         * JDBC URL of a direct connection to this database (not through a transaction pooler), used only to
         * LISTEN for its wake-ups; as pgqueue.listener.notify-url.
         */
        private @Nullable String notifyUrl;

        /** Login user of the notify-url connection; by default this database's username. */
        private @Nullable String notifyUsername;

        /** Login password of the notify-url connection; by default this database's password. */
        private @Nullable String notifyPassword;

        /** Name of a DataSource bean that gives direct connections to this database, used only to LISTEN. */
        private @Nullable String notifyDataSource;

        public @Nullable String getNotifyUrl() {
            return notifyUrl;
        }

        public void setNotifyUrl(@Nullable String notifyUrl) {
            this.notifyUrl = notifyUrl;
        }

        public @Nullable String getNotifyUsername() {
            return notifyUsername;
        }

        public void setNotifyUsername(@Nullable String notifyUsername) {
            this.notifyUsername = notifyUsername;
        }

        public @Nullable String getNotifyPassword() {
            return notifyPassword;
        }

        public void setNotifyPassword(@Nullable String notifyPassword) {
            this.notifyPassword = notifyPassword;
        }

        public @Nullable String getNotifyDataSource() {
            return notifyDataSource;
        }

        public void setNotifyDataSource(@Nullable String notifyDataSource) {
            this.notifyDataSource = notifyDataSource;
        }

        /** The direct connection for this database's LISTEN, as configured. */
        public NotifyConnection notifyConnection() {
            return new NotifyConnection(notifyUrl, notifyUsername, notifyPassword, notifyDataSource);
        }

        @Override
        public int getMaximumPoolSize() {
            return maximumPoolSize;
        }

        public void setMaximumPoolSize(int maximumPoolSize) {
            this.maximumPoolSize = maximumPoolSize;
        }

        static void validateAll(Map<String, Database> databases) {
            Map<String, String> databaseByQueue = new java.util.HashMap<>();
            Map<Integer, String> databaseByBlock = new java.util.HashMap<>();
            databases.forEach((name, database) -> {
                String prefix = "pgqueue.databases." + name;
                if (!NAME.matcher(name).matches() || DEFAULT.equals(name)) {
                    throw new InvalidConfigurationPropertyValueException("pgqueue.databases", name,
                            "a database's name must match [a-z][a-z0-9_-]* and not be 'default'");
                }
                if (database.idBlock < 1 || database.idBlock > IdBlocks.MAX_BLOCK) {
                    throw new InvalidConfigurationPropertyValueException(prefix + ".id-block", database.idBlock,
                            "must be set, from 1 to " + IdBlocks.MAX_BLOCK + ", and never change once the database holds jobs");
                }
                String sameBlock = databaseByBlock.putIfAbsent(database.idBlock, name);
                if (sameBlock != null) {
                    throw new InvalidConfigurationPropertyValueException(prefix + ".id-block", database.idBlock,
                            "already the id block of database '" + sameBlock + "'");
                }
                if ((database.getDataSource() == null) == (database.getUrl() == null)) {
                    throw new InvalidConfigurationPropertyValueException(prefix + ".url", database.getUrl(),
                            "give either " + prefix + ".url or " + prefix + ".data-source (a DataSource bean's name)");
                }
                atLeast(prefix + ".maximum-pool-size", database.getMaximumPoolSize(), 1);
                database.replica.validate(prefix + ".replica");
                database.notifyConnection().validate(prefix, true, "pgqueue.listener.notify");
                positive(prefix + ".connection-timeout", database.getConnectionTimeout());
                if (database.queues.isEmpty()) {
                    throw new InvalidConfigurationPropertyValueException(prefix + ".queues", database.queues,
                            "list the queues that live in this database");
                }
                for (String queue : database.queues) {
                    check(prefix + ".queues", queue, () -> QueueNames.validate(queue));
                    String other = databaseByQueue.putIfAbsent(queue, name);
                    if (other != null && !other.equals(name)) {
                        throw new InvalidConfigurationPropertyValueException(prefix + ".queues", queue,
                                "queue '" + queue + "' is already listed by database '" + other
                                        + "'; a queue lives in one database");
                    }
                }
            });
        }

        public int getIdBlock() {
            return idBlock;
        }

        public void setIdBlock(int idBlock) {
            this.idBlock = idBlock;
        }

        public List<String> getQueues() {
            return queues;
        }

        public void setQueues(List<String> queues) {
            this.queues = queues;
        }

        public Replica getReplica() {
            return replica;
        }
    }

    /**
     * A direct connection used only to LISTEN (not through a transaction pooler, which cannot carry LISTEN): a
     * JDBC URL with optional credentials, or a DataSource bean's name; all null when LISTEN goes through the
     * database's own DataSource.
     */
    public record NotifyConnection(@Nullable String url, @Nullable String username, @Nullable String password,
            @Nullable String dataSource) {

        public boolean isConfigured() {
            return url != null || dataSource != null;
        }

        /** What logs and errors show of the connection: the URL without its parameters (a password may be one). */
        public String describe() {
            return (url != null) ? described(url) : "DataSource bean '" + dataSource + "'";
        }

        private static String described(String url) {
            int parameters = url.indexOf('?');
            return (parameters < 0) ? url : url.substring(0, parameters) + "?…";
        }

        /** The property that names the connection (for errors), under the given prefix. */
        public String property(String prefix) {
            return prefix + ((dataSource != null) ? ".notify-data-source" : ".notify-url");
        }

        void validate(String prefix, boolean notify, String notifyProperty) {
            if (url != null && dataSource != null) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".notify-url", described(url),
                        "give either " + prefix + ".notify-url or " + prefix + ".notify-data-source, not both");
            }
            if (url != null && !url.startsWith("jdbc:postgresql:")) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".notify-url", described(url),
                        "must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database) of a direct connection");
            }
            if (url == null && (username != null || password != null)) {
                throw new InvalidConfigurationPropertyValueException(
                        prefix + ((username != null) ? ".notify-username" : ".notify-password"),
                        (username != null) ? username : "******", "is used only with " + prefix + ".notify-url");
            }
            if (isConfigured() && !notify) {
                throw new InvalidConfigurationPropertyValueException(property(prefix),
                        (url != null) ? described(url) : dataSource,
                        "is a connection for LISTEN, but " + notifyProperty
                                + "=false turns LISTEN/NOTIFY off; remove one of the two");
            }
        }
    }

    /** A read replica (a streaming standby) that serves listings; unused unless url or data-source is given. */
    public static class Replica extends PooledConnection {

        /**
         * Most connections of the pool pgqueue builds for the replica (listings only).
         */
        private int maximumPoolSize = 4;

        @Override
        public int getMaximumPoolSize() {
            return maximumPoolSize;
        }

        public void setMaximumPoolSize(int maximumPoolSize) {
            this.maximumPoolSize = maximumPoolSize;
        }

        /** Whether a replica is configured. */
        public boolean isConfigured() {
            return getUrl() != null || getDataSource() != null;
        }

        void validate(String prefix) {
            if (getUrl() != null && getDataSource() != null) {
                throw new InvalidConfigurationPropertyValueException(prefix + ".url", getUrl(),
                        "give either " + prefix + ".url or " + prefix + ".data-source, not both");
            }
            atLeast(prefix + ".maximum-pool-size", getMaximumPoolSize(), 1);
            positive(prefix + ".connection-timeout", getConnectionTimeout());
        }

    }

    /** How pgqueue reaches a further database or a replica: a DataSource bean, or a pool it builds itself. */
    public abstract static class PooledConnection {

        /**
         * Name of a DataSource bean to use; instead of url, username and password.
         */
        private @Nullable String dataSource;

        /**
         * JDBC URL, for a connection pool pgqueue builds and closes itself.
         */
        private @Nullable String url;

        /**
         * Login user.
         */
        private @Nullable String username;

        /**
         * Login password.
         */
        private @Nullable String password;


        /**
         * Longest wait for a connection of the pool pgqueue builds: a call on this database while it is down
         * fails after it.
         */
        private Duration connectionTimeout = Duration.ofSeconds(5);

        /** Most connections of the pool pgqueue builds. */
        public abstract int getMaximumPoolSize();

        public @Nullable String getDataSource() {
            return dataSource;
        }

        public void setDataSource(@Nullable String dataSource) {
            this.dataSource = dataSource;
        }

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public @Nullable String getUsername() {
            return username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public Duration getConnectionTimeout() {
            return connectionTimeout;
        }

        public void setConnectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
        }
    }
}
