package io.pgqueue.config;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * A listener method found on a bean, with its annotation attributes already resolved (placeholders
 * replaced); null attributes were not given and come from configuration.
 *
 * @param bean the bean (or its proxy)
 * @param method the method to invoke on it
 * @param queue queue name
 * @param id container id, or null for a generated one
 * @param concurrency concurrency, or null
 * @param mode delivery mode name, or null
 * @param batchSize batch size, or null
 * @param maxAttempts max attempts, or null
 * @param timeout the handler's timeout (a Duration, e.g. "30s"), or null
 */
public record ListenerEndpoint(Object bean, Method method, String queue, @Nullable String id,
        @Nullable String concurrency, @Nullable String mode, @Nullable String batchSize, @Nullable String maxAttempts,
        @Nullable String timeout) {
}
