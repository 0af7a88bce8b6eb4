package io.pgqueue.internal.listener;

import java.util.function.Supplier;

import io.pgqueue.config.QueueListenerContainerFactory;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.listener.adapter.MethodJobHandler;
import io.pgqueue.model.DeliveryMode;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;

/**
 * pgqueue's containers: LEASE or TRANSACTIONAL as the options ask, over pgqueue's repositories and node.
 */
public class JdbcListenerContainerFactory implements QueueListenerContainerFactory {

    private final ListenerContainers containers;

    private final Supplier<@Nullable PlatformTransactionManager> transactionManager;

    public JdbcListenerContainerFactory(ListenerContainers containers,
            Supplier<@Nullable PlatformTransactionManager> transactionManager) {
        this.containers = containers;
        this.transactionManager = transactionManager;
    }

    /**
     * @throws IllegalStateException naming the method when its delivery mode cannot be set up
     */
    @Override
    public QueueListenerContainer create(ContainerOptions options, MethodJobHandler handler) {
        return containers.create(options, handler,
                (options.mode() == DeliveryMode.TRANSACTIONAL) ? transactionManager.get() : null);
    }
}
