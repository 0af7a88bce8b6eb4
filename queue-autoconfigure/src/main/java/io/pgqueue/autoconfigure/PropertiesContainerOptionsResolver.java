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

    PropertiesContainerOptionsResolver(PgQueueProperties properties) {
        this.properties = properties;
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
                        + attribute + "'", ex);
            }
        }
        return first(perQueue, defaults);
    }

    private static DeliveryMode mode(String value) {
        return DeliveryMode.valueOf(value.toUpperCase(Locale.ROOT));
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
