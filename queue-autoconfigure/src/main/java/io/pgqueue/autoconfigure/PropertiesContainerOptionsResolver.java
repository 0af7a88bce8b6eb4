package io.pgqueue.autoconfigure;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.pgqueue.config.ContainerOptionsResolver;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.Fairness;
import io.pgqueue.listener.RateLimit;
import io.pgqueue.listener.WorkerThreads;
import io.pgqueue.listener.adapter.MethodJobHandler;
import io.pgqueue.listener.error.ExponentialBackoff;
import io.pgqueue.model.DeliveryMode;
import io.pgqueue.model.QueueNames;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;

/**
 * Resolves a listener's settings: annotation attribute, else {@code pgqueue.queues.<queue>.*}, else
 * {@code pgqueue.listener.*}.
 */
class PropertiesContainerOptionsResolver implements ContainerOptionsResolver {

    private final PgQueueProperties properties;

    private final Map<String, AtomicInteger> containersPerQueue = new ConcurrentHashMap<>();

    /** What workers run on when no property says: virtual when Boot's switch is on (Java 21 or later). */
    private final WorkerThreads defaultWorkerThreads;

    PropertiesContainerOptionsResolver(PgQueueProperties properties, boolean virtualThreadsEnabled) {
        this.properties = properties;
        this.defaultWorkerThreads = (virtualThreadsEnabled && WorkerThreads.virtualSupported()) ? WorkerThreads.VIRTUAL
                : WorkerThreads.PLATFORM;
    }

    @Override
    public ContainerOptions resolve(ListenerEndpoint endpoint) {
        String method = MethodJobHandler.describe(endpoint.method());
        String queue = endpoint.queue();
        try {
            QueueNames.validate(queue);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalStateException("@QueueListener method " + method + ": " + ex.getMessage(), ex);
        }
        PgQueueProperties.Listener defaults = properties.getListener();
        PgQueueProperties.Queue perQueue = properties.getQueues().getOrDefault(queue, new PgQueueProperties.Queue());
        String id = (endpoint.id() != null) ? endpoint.id()
                : queue + "-" + containersPerQueue.computeIfAbsent(queue, (name) -> new AtomicInteger()).incrementAndGet();
        try {
            return ContainerOptions.builder()
                .id(id)
                .queue(queue)
                .mode(pick(endpoint.mode(), method, "mode", PropertiesContainerOptionsResolver::mode, perQueue.getMode(),
                        defaults.getMode()))
                .concurrency(pick(endpoint.concurrency(), method, "concurrency", Integer::valueOf,
                        perQueue.getConcurrency(), defaults.getConcurrency()))
                .batchSize(pick(endpoint.batchSize(), method, "batchSize", Integer::valueOf, perQueue.getBatchSize(),
                        defaults.getBatchSize()))
                .maxAttempts(pick(endpoint.maxAttempts(), method, "maxAttempts", Integer::valueOf,
                        perQueue.getMaxAttempts(), defaults.getMaxAttempts()))
                .timeout((endpoint.timeout() != null)
                        ? pick(endpoint.timeout(), method, "timeout", DurationStyle::detectAndParse, null, null)
                        : firstOr(perQueue.getTimeout(), defaults.getTimeout(), null))
                .pollInterval(first(perQueue.getPollInterval(), defaults.getPollInterval()))
                .backoff(backoff(perQueue.getBackoff(), defaults.getBackoff()))
                .autoStartup(defaults.isAutoStartup())
                .maxRunning(firstOr(perQueue.getMaxRunning(), defaults.getMaxRunning(), null))
                .rate(rate(firstOr(perQueue.getRate(), defaults.getRate(), null)))
                .groupFailure(first(perQueue.getGroupFailure(), defaults.getGroupFailure()))
                .fairness(fairness(perQueue.getFairness()))
                .workerThreads(workerThreads(queue, perQueue, defaults))
                .prefetch(firstOr(perQueue.getPrefetch(), defaults.getPrefetch(), 0))
                .build();
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalStateException("@QueueListener method " + method + ": " + ex.getMessage(), ex);
        }
    }

    private static <T> T pick(@Nullable String attribute, String method, String name, Function<String, T> parser,
            @Nullable T perQueue, @Nullable T defaults) {
        if (attribute != null) {
            try {
                return parser.apply(attribute);
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalStateException("@QueueListener method " + method + " has an invalid " + name + " '"
                        + attribute + "': " + ex.getMessage(), ex);
            }
        }
        return first(perQueue, defaults);
    }

    /**
     * The property's choice, else the default. Virtual threads asked for by name on a JVM without them fail
     * startup naming the property (Boot's own switch is ignored there, as Boot does).
     */
    private WorkerThreads workerThreads(String queue, PgQueueProperties.Queue perQueue,
            PgQueueProperties.Listener defaults) {
        String property = (perQueue.getWorkerThreads() != null) ? "pgqueue.queues." + queue + ".worker-threads"
                : "pgqueue.listener.worker-threads";
        WorkerThreads chosen = firstOr(perQueue.getWorkerThreads(), defaults.getWorkerThreads(), null);
        if (chosen == WorkerThreads.VIRTUAL && !WorkerThreads.virtualSupported()) {
            throw new IllegalArgumentException(property + "=virtual needs Java 21 or later; this JVM is Java "
                    + Runtime.version().feature());
        }
        return (chosen != null) ? chosen : defaultWorkerThreads;
    }

    private static DeliveryMode mode(String value) {
        for (DeliveryMode mode : DeliveryMode.values()) {
            if (mode.name().equalsIgnoreCase(value.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException("valid modes are " + java.util.Arrays.stream(DeliveryMode.values())
            .map(DeliveryMode::name).collect(java.util.stream.Collectors.joining(" and ")));
    }

    private static ExponentialBackoff backoff(PgQueueProperties.Backoff perQueue, PgQueueProperties.Backoff defaults) {
        return new ExponentialBackoff(first(perQueue.getInitial(), defaults.getInitial()),
                first(perQueue.getMultiplier(), defaults.getMultiplier()), first(perQueue.getMax(), defaults.getMax()),
                first(perQueue.getJitter(), defaults.getJitter()));
    }

    private static @Nullable Fairness fairness(PgQueueProperties.Fairness properties) {
        if (!properties.isFair()) {
            return null;
        }
        Fairness.Builder fairness = Fairness.builder()
            .defaultWeight(properties.getDefaultWeight())
            .maxRunningPerKey(properties.getMaxRunningPerKey())
            .keysPerClaim(properties.getKeysPerClaim());
        properties.getWeights().forEach(fairness::weight);
        properties.getMaxRunning().forEach(fairness::maxRunning);
        return fairness.build();
    }

    private static @Nullable RateLimit rate(@Nullable String rate) {
        return (rate != null) ? RateLimit.parse(rate) : null;
    }

    private static <T> @Nullable T firstOr(@Nullable T preferred, @Nullable T fallback, @Nullable T last) {
        return (preferred != null) ? preferred : (fallback != null) ? fallback : last;
    }

    private static <T> T first(@Nullable T preferred, @Nullable T fallback) {
        if (preferred != null) {
            return preferred;
        }
        if (fallback == null) {
            throw new IllegalStateException("pgqueue.listener defaults are incomplete");
        }
        return fallback;
    }
}
