package io.pgqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.QueueOperations;
import io.pgqueue.config.QueueListenerContainerFactory;
import io.pgqueue.internal.listener.DurableRuns;
import io.pgqueue.internal.listener.JdbcListenerContainerFactory;
import io.pgqueue.internal.listener.ListenerContainers;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.internal.workflow.JdbcWorkflows;
import io.pgqueue.listener.JobInterceptor;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.error.QueueErrorHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;

/**
 * Builds pgqueue's listener container factory as the auto-configuration does, with the application's error
 * handler, observers, transaction manager and properties (in the manner of Boot's
 * {@code ConcurrentKafkaListenerContainerFactoryConfigurer}). An application that defines its own
 * {@link QueueListenerContainerFactory} delegates to {@link #createFactory()} to keep pgqueue's defaults:
 *
 * <pre>{@code
 * @Bean
 * QueueListenerContainerFactory queueListenerContainerFactory(QueueListenerContainerFactoryConfigurer configurer) {
 *     QueueListenerContainerFactory defaults = configurer.createFactory();
 *     return (options, handler) -> defaults.create(options.toBuilder().concurrency(2).build(), handler);
 * }
 * }</pre>
 */
public final class QueueListenerContainerFactoryConfigurer {

    private final Repositories repositories;

    private final NodeRuntime node;

    private final JobPayloadCodec codec;

    private final QueueErrorHandler errorHandler;

    private final JobObserver observer;

    private final ProcessObserver processObserver;

    private final @Nullable Duration maintenanceInterval;

    private final Supplier<@Nullable PlatformTransactionManager> transactionManager;

    private final @Nullable VacuumHorizonWatch vacuumHorizon;

    private final JdbcWorkflows workflows;

    private final Wakeups wakeups;

    private final List<JobInterceptor> interceptors;

    private final Supplier<? extends QueueOperations> template;

    private final Duration childRecheck;

    QueueListenerContainerFactoryConfigurer(Repositories repositories, NodeRuntime node, JobPayloadCodec codec,
            QueueErrorHandler errorHandler, JobObserver observer, ProcessObserver processObserver,
            @Nullable Duration maintenanceInterval, Supplier<@Nullable PlatformTransactionManager> transactionManager,
            @Nullable VacuumHorizonWatch vacuumHorizon, JdbcWorkflows workflows, Wakeups wakeups,
            List<JobInterceptor> interceptors, Supplier<? extends QueueOperations> template, Duration childRecheck) {
        this.template = template;
        this.childRecheck = childRecheck;
        this.wakeups = wakeups;
        this.interceptors = List.copyOf(interceptors);
        this.vacuumHorizon = vacuumHorizon;
        this.workflows = workflows;
        this.repositories = repositories;
        this.node = node;
        this.codec = codec;
        this.errorHandler = errorHandler;
        this.observer = observer;
        this.processObserver = processObserver;
        this.maintenanceInterval = maintenanceInterval;
        this.transactionManager = transactionManager;
    }

    /** A new factory of pgqueue's LEASE and TRANSACTIONAL containers, configured as the auto-configuration's. */
    public QueueListenerContainerFactory createFactory() {
        return new JdbcListenerContainerFactory(new ListenerContainers(repositories.engine(), repositories.history(), node, codec.mapper(),
                errorHandler, observer, processObserver, maintenanceInterval, vacuumHorizon, workflows, wakeups::jobsReady,
                interceptors, new DurableRuns(repositories.durable(), codec, template, childRecheck, observer)),
                transactionManager);
    }
}
