package io.pgqueue.listener;

import java.util.function.Supplier;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.listener.adapter.MethodJobHandler;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.store.ListenerStore;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Creates the container for a listener method in the delivery mode its options ask for.
 */
public class QueueListenerContainerFactory {

    private final ListenerStore store;

    private final NodeRuntime node;

    private final JobPayloadCodec codec;

    private final QueueErrorHandler errorHandler;

    private final Supplier<@Nullable PlatformTransactionManager> transactionManager;

    private final JobObserver observer;

    public QueueListenerContainerFactory(ListenerStore store, NodeRuntime node, JobPayloadCodec codec,
            QueueErrorHandler errorHandler, Supplier<@Nullable PlatformTransactionManager> transactionManager,
            JobObserver observer) {
        this.store = store;
        this.node = node;
        this.codec = codec;
        this.errorHandler = errorHandler;
        this.transactionManager = transactionManager;
        this.observer = observer;
    }

    public QueueListenerContainer create(ContainerOptions options, MethodJobHandler handler) {
        JobExecutor executor = new JobExecutor(handler, errorHandler, options.backoff(), codec.mapper(), observer);
        if (options.mode() == DeliveryMode.LEASE) {
            return new LeaseQueueListenerContainer(options, executor, store, node);
        }
        PlatformTransactionManager manager = transactionManager.get();
        if (manager == null) {
            throw new IllegalStateException("@QueueListener method " + handler.describe()
                    + " uses TRANSACTIONAL delivery, which needs a single PlatformTransactionManager bean on the "
                    + "queue's DataSource; none was found");
        }
        return new TransactionalQueueListenerContainer(options, executor, store, new TransactionTemplate(manager),
                node.settings().shutdownTimeout());
    }
}
