package io.pgqueue.autoconfigure;

import javax.sql.DataSource;

import io.pgqueue.JobNotifier;
import io.pgqueue.JobPayloadCodec;
import io.pgqueue.annotation.QueueListenerAnnotationBeanPostProcessor;
import io.pgqueue.listener.ContainerOptionsResolver;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.NodeRuntime;
import io.pgqueue.listener.NodeSettings;
import io.pgqueue.listener.QueueListenerContainerFactory;
import io.pgqueue.listener.QueueListenerContainerRegistry;
import io.pgqueue.listener.error.DefaultQueueErrorHandler;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.store.ListenerStore;
import io.pgqueue.store.NodeIdentity;
import io.pgqueue.store.NodeStore;
import io.pgqueue.store.NotificationStore;
import io.pgqueue.store.QueueTables;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The consuming side: {@code @QueueListener} discovery, containers, node membership and wake-ups.
 */
@Configuration(proxyBeanMethods = false)
class QueueListenerConfiguration {

    /** Static, so that registering the post-processor initialises nothing else early. */
    @Bean
    @ConditionalOnMissingBean
    static QueueListenerAnnotationBeanPostProcessor queueListenerAnnotationBeanPostProcessor() {
        return new QueueListenerAnnotationBeanPostProcessor();
    }

    @Bean
    @ConditionalOnMissingBean
    ListenerStore listenerStore(DataSource dataSource, QueueTables tables) {
        return new ListenerStore(dataSource, tables);
    }

    @Bean
    @ConditionalOnMissingBean
    NodeStore nodeStore(DataSource dataSource, QueueTables tables) {
        return new NodeStore(dataSource, tables);
    }

    @Bean
    @ConditionalOnMissingBean
    NodeRuntime nodeRuntime(NodeStore nodeStore, PgQueueProperties properties) {
        PgQueueProperties.Listener listener = properties.getListener();
        return new NodeRuntime(nodeStore, NodeIdentity.create(),
                new NodeSettings(listener.getLeaseDuration(), listener.getHeartbeatInterval(), listener.getNodeTimeout(),
                        listener.getShutdownTimeout(), listener.getMaxAttempts()));
    }

    @Bean
    @ConditionalOnMissingBean(QueueErrorHandler.class)
    DefaultQueueErrorHandler queueErrorHandler(PgQueueProperties properties) {
        return new DefaultQueueErrorHandler(properties.getListener().getNotRetryable());
    }

    @Bean
    @ConditionalOnMissingBean
    QueueListenerContainerFactory queueListenerContainerFactory(ListenerStore listenerStore, NodeRuntime nodeRuntime,
            JobPayloadCodec codec, QueueErrorHandler errorHandler,
            ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<JobObserver> observers) {
        return new QueueListenerContainerFactory(listenerStore, nodeRuntime, codec, errorHandler,
                transactionManager::getIfUnique, JobObserver.composite(observers.orderedStream().toList()));
    }

    @Bean
    @ConditionalOnMissingBean
    ContainerOptionsResolver containerOptionsResolver(PgQueueProperties properties) {
        return new PropertiesContainerOptionsResolver(properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    QueueListenerContainerRegistry queueListenerContainerRegistry(QueueListenerContainerFactory factory,
            ContainerOptionsResolver optionsResolver, JobPayloadCodec codec, NodeRuntime nodeRuntime,
            NotificationStore notificationStore, PgQueueProperties properties, ObjectProvider<JobNotifier> notifier) {
        QueueListenerContainerRegistry registry = new QueueListenerContainerRegistry(factory, optionsResolver, codec,
                nodeRuntime, properties.getListener().isNotify() ? notificationStore : null);
        // jobs sent from this JVM wake its own listeners at once, without a round trip through NOTIFY
        notifier.ifAvailable((available) -> available.addLocalListener(registry::wakeUp));
        return registry;
    }
}
