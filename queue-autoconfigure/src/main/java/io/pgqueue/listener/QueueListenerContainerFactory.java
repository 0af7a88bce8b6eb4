package io.pgqueue.listener;

import java.util.function.Supplier;

import io.pgqueue.internal.listener.ListenerContainers;
import io.pgqueue.listener.adapter.MethodJobHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;
import io.pgqueue.model.DeliveryMode;

/**
 * Creates the container for a listener method in the delivery mode its options ask for.
 */
public class QueueListenerContainerFactory {

    private final ListenerContainers containers;

    private final Supplier<@Nullable PlatformTransactionManager> transactionManager;

    public QueueListenerContainerFactory(ListenerContainers containers,
            Supplier<@Nullable PlatformTransactionManager> transactionManager) {
        this.containers = containers;
        this.transactionManager = transactionManager;
    }

    /**
     * @throws IllegalStateException naming the method when its delivery mode cannot be set up
     */
    public QueueListenerContainer create(ContainerOptions options, MethodJobHandler handler) {
        return containers.create(options, handler,
                (options.mode() == DeliveryMode.TRANSACTIONAL) ? transactionManager.get() : null);
    }
}
