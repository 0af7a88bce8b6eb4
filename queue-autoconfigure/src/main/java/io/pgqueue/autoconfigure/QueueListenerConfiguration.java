package io.pgqueue.autoconfigure;

import javax.sql.DataSource;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListenerAnnotationBeanPostProcessor;
import io.pgqueue.config.ContainerOptionsResolver;
import io.pgqueue.config.QueueListenerContainerFactory;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.internal.listener.DefaultListenerContainerRegistry;
import io.pgqueue.internal.node.NodeIdentity;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.routing.RoutingListenerContainerRegistry;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.listener.JobInterceptor;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.error.DefaultQueueErrorHandler;
import io.pgqueue.listener.error.QueueErrorHandler;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
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
    NodeRuntime pgqueueNodeRuntime(Repositories repositories, PgQueueProperties properties) {
        return DatabaseParts.nodeRuntime(repositories, NodeIdentity.create(), properties);
    }

    @Bean
    @ConditionalOnMissingBean(QueueErrorHandler.class)
    DefaultQueueErrorHandler queueErrorHandler(PgQueueProperties properties) {
        return new DefaultQueueErrorHandler(properties.getListener().getNotRetryable());
    }

    @Bean
    @ConditionalOnMissingBean
    QueueListenerContainerFactoryConfigurer queueListenerContainerFactoryConfigurer(Repositories repositories,
            NodeRuntime nodeRuntime, JobPayloadCodec codec, QueueErrorHandler errorHandler,
            ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<JobObserver> observers,
            ObjectProvider<ProcessObserver> processObserver, PgQueueProperties properties,
            ObjectProvider<VacuumHorizonWatch> vacuumHorizon, Wakeups wakeups, PgQueueDatabases databases,
            ObjectProvider<JobInterceptor> interceptors, ObjectProvider<QueueTemplate> template) {
        return DatabaseParts.configurer(repositories, nodeRuntime, codec, errorHandler,
                JobObserver.composite(observers.orderedStream().toList()),
                databases.observingDefault(processObserver.getIfAvailable(() -> ProcessObserver.NONE)), properties,
                transactionManager::getIfUnique, vacuumHorizon.getIfAvailable(),
                databases.placed(DatabaseParts.workflows(repositories, codec, wakeups)), wakeups,
                interceptors.orderedStream().toList(), template::getObject);
    }

    @Bean
    @ConditionalOnMissingBean
    QueueListenerContainerFactory queueListenerContainerFactory(QueueListenerContainerFactoryConfigurer configurer) {
        return configurer.createFactory();
    }

    @Bean
    @ConditionalOnMissingBean
    ContainerOptionsResolver containerOptionsResolver(PgQueueProperties properties, Environment environment) {
        return new PropertiesContainerOptionsResolver(properties, Threading.VIRTUAL.isActive(environment));
    }

    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    QueueListenerContainerRegistry queueListenerContainerRegistry(QueueListenerContainerFactory factory,
            ContainerOptionsResolver optionsResolver, JobPayloadCodec codec, NodeRuntime nodeRuntime, Wakeups wakeups,
            PgQueueDatabases databases, DataSource dataSource) {
        DefaultListenerContainerRegistry registry = DatabaseParts.registry(factory, optionsResolver, codec, nodeRuntime,
                wakeups);
        registry.setPoolSize(PoolSizes.maximum(dataSource));
        return databases.isEmpty() ? registry
                : new RoutingListenerContainerRegistry(databases.router(registry, PgQueueDatabases.Unit::registry),
                        optionsResolver);
    }
}
