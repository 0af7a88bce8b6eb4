package io.pgqueue.config;

import io.pgqueue.listener.ContainerOptions;

/**
 * Turns an endpoint into container options: annotation attributes first, then per-queue configuration,
 * then listener defaults.
 */
@FunctionalInterface
public interface ContainerOptionsResolver {

    /**
     * @throws IllegalStateException naming the method when an attribute is invalid
     */
    ContainerOptions resolve(ListenerEndpoint endpoint);
}
