package io.pgqueue.config;

import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.listener.adapter.MethodJobHandler;

/**
 * Creates the container for a listener method in the delivery mode its options ask for. To adapt pgqueue's
 * containers (wrap them, adjust their options), define a bean of this type that delegates to the factory
 * {@code QueueListenerContainerFactoryConfigurer.createFactory()} returns: it keeps pgqueue's defaults.
 */
@FunctionalInterface
public interface QueueListenerContainerFactory {

    /**
     * @throws IllegalStateException naming the method when its delivery mode cannot be set up
     */
    QueueListenerContainer create(ContainerOptions options, MethodJobHandler handler);
}
