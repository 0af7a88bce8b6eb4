package io.pgqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.sql.DataSource;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.QueueOperations;
import io.pgqueue.config.ContainerOptionsResolver;
import io.pgqueue.config.QueueListenerContainerFactory;
import io.pgqueue.internal.listener.DefaultListenerContainerRegistry;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.publish.JdbcBatches;
import io.pgqueue.internal.schedule.RecurringJobRunner;
import io.pgqueue.internal.workflow.JdbcWorkflows;
import io.pgqueue.listener.JobInterceptor;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.schedule.RecurringJob;
import io.pgqueue.admin.QueuesAdmin;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.internal.node.NodeIdentity;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.node.NodeSettings;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.persistence.HistoryRepository;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.persistence.Schema;
import io.pgqueue.internal.publish.JdbcQueueTemplate;
import io.pgqueue.internal.schema.QueueFlywayConfigurationCustomizer;
import io.pgqueue.internal.schema.QueueSchemaInitializer;
import io.pgqueue.internal.wakeup.Wakeups;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The parts of one database's pgqueue — repositories, wake-ups, template, admin's maintenance, node, schema
 * migration, the watch of its vacuum horizon, workflows, batches, scheduler, listener containers — made the same way for the application's DataSource (whose parts the
 * auto-configuration registers as beans) and for each database of {@code pgqueue.databases} (whose parts
 * {@link PgQueueDatabases} keeps in its unit): the one place both build them from.
 */
final class DatabaseParts {

    private DatabaseParts() {
    }

    /**
     * One database's repositories (the application's, one of {@code pgqueue.databases}, or a replica); where
     * several databases are configured, their errors name the database.
     */
    static Repositories repositories(DataSource dataSource, PgQueueProperties properties, String database) {
        PgQueueProperties.Schema schema = properties.getSchema();
        return new Repositories(dataSource, new Schema(schema.getName()), schema.getHistoryTable(),
                properties.getCounters().isEnabled(), properties.getHistory().isEnabled(),
                properties.getStatementTimeout(), properties.getDatabases().isEmpty() ? null : database,
                properties.getListener().isDurableClaims());
    }

    /**
     * One database's wake-ups, listening on the direct connection when one is configured: it is checked now (a
     * NOTIFY sent through the database's DataSource must arrive on it), so that a wrong one fails startup instead
     * of leaving every wake-up to the poll interval.
     */
    static Wakeups wakeups(Repositories repositories, PgQueueProperties properties, @Nullable ListenConnection direct) {
        Wakeups wakeups = listening(repositories, properties, direct);
        // jobs that a statement makes ready beside the ones it finishes wake listeners as a send does
        repositories.onJobsReady(wakeups::jobsReady);
        return wakeups;
    }

    private static Wakeups listening(Repositories repositories, PgQueueProperties properties,
            @Nullable ListenConnection direct) {
        PgQueueProperties.Listener listener = properties.getListener();
        if (direct == null) {
            return new Wakeups(repositories.notifications(), listener.isNotify(), listener.getNotifyDebounce());
        }
        Wakeups wakeups = new Wakeups(repositories.notificationsListeningOn(direct.dataSource(), direct.description()),
                true, listener.getNotifyDebounce());
        try {
            wakeups.verifyListening(LISTEN_CHECK_TIMEOUT);
        }
        catch (IllegalStateException ex) {
            wakeups.destroy();
            throw new InvalidConfigurationPropertyValueException(direct.property(), direct.description(),
                    ex.getMessage());
        }
        return wakeups;
    }

    /** How long the startup check of a direct LISTEN connection waits for its probe. */
    private static final Duration LISTEN_CHECK_TIMEOUT = Duration.ofSeconds(5);

    /**
     * One database's template, without an observer. The queues configured fair: it gives their jobs sent
     * without a fairness key the default key.
     */
    static JdbcQueueTemplate template(Repositories repositories, JobPayloadCodec codec, Wakeups wakeups,
            PgQueueProperties properties) {
        JdbcQueueTemplate template = new JdbcQueueTemplate(repositories.publishing(), repositories.admin(), codec, wakeups,
                properties.getTemplate().getBatchChunkSize());
        java.util.Set<String> fair = new java.util.HashSet<>();
        properties.getQueues().forEach((queue, settings) -> {
            if (settings.getFairness().isFair()) {
                fair.add(queue);
            }
        });
        template.setFairQueues(fair::contains);
        return template;
    }

    /** One database's watch of what holds back its vacuum. */
    static VacuumHorizonWatch vacuumHorizonWatch(Repositories repositories, PgQueueProperties properties) {
        PgQueueProperties.Health health = properties.getHealth();
        return new VacuumHorizonWatch(repositories.vacuumHorizon(), health.getVacuumCheckInterval(),
                health.getVacuumHoldWarning());
    }

    /** One database's maintenance. */
    static QueueMaintenance maintenance(Repositories repositories, QueuesAdmin queueAdmin, PgQueueProperties properties,
            JdbcWorkflows workflows) {
        QueueMaintenance upkeep = maintenance(repositories, queueAdmin, properties);
        upkeep.setCompensations(workflows::startCompensations);
        return upkeep;
    }

    private static QueueMaintenance maintenance(Repositories repositories, QueuesAdmin queueAdmin,
            PgQueueProperties properties) {
        PgQueueProperties.Maintenance maintenance = properties.getMaintenance();
        PgQueueProperties.Retention retention = properties.getRetention();
        PgQueueProperties.History history = properties.getHistory();
        return new QueueMaintenance(repositories, queueAdmin, maintenance.getInterval(),
                maintenance.getReconcileInterval(),
                new QueueMaintenance.RetentionSettings(retention.getDead(),
                        history.isEnabled() ? history.getRetention() : null, retention.getWorkflows(), retention.getBatches(),
                        retention.getInterval(), retention.getBatchSize()),
                history.isEnabled() ? new HistoryRepository.PartitionPlan(history.getPartitionInterval(),
                        history.getPartitionsAhead(), history.getRetention(), QueueMaintenance.ANALYZE_HISTORY_EVERY)
                        : null);
    }

    /** The migration of one database's schema. */
    static QueueSchemaInitializer schemaInitializer(DataSource dataSource, ClassLoader classLoader,
            PgQueueProperties properties, List<QueueFlywayConfigurationCustomizer> customizers) {
        PgQueueProperties.Schema schema = properties.getSchema();
        return new QueueSchemaInitializer(dataSource, classLoader, schema.getName(), schema.getHistoryTable(),
                customizers, schema.getLockTimeout(), schema.getLockAttempts());
    }

    /** One database's node: membership, heartbeat, leases, rescue. */
    static NodeRuntime nodeRuntime(Repositories repositories, NodeIdentity identity, PgQueueProperties properties) {
        PgQueueProperties.Listener listener = properties.getListener();
        return new NodeRuntime(repositories.nodes(), repositories.engine(), identity,
                new NodeSettings(listener.getLeaseDuration(), listener.getHeartbeatInterval(), listener.getNodeTimeout(),
                        listener.getShutdownTimeout(), listener.getInterruptGrace()));
    }

    /** One database's workflows; {@link PgQueueDatabases#placed} tells them where other databases' queues live. */
    static JdbcWorkflows workflows(Repositories repositories, JobPayloadCodec codec, Wakeups wakeups) {
        return new JdbcWorkflows(repositories.workflows(), codec, wakeups);
    }

    /**
     * One database's batches, whose members are sent through the database's template; a callback's queue must be
     * one {@code knownQueue} accepts.
     */
    static JdbcBatches batches(Repositories repositories, JdbcQueueTemplate members, JobPayloadCodec codec,
            Predicate<String> knownQueue) {
        return new JdbcBatches(repositories.batches(), members, codec, knownQueue);
    }

    /** One database's scheduler of the recurring jobs whose queues live in it. */
    static RecurringJobRunner scheduler(Repositories repositories, Wakeups wakeups, JobPayloadCodec codec,
            PgQueueProperties properties, List<RecurringJob> jobs) {
        return new RecurringJobRunner(repositories.schedules(), wakeups, codec,
                properties.getScheduler().getPollInterval(), jobs);
    }

    /**
     * What one database's listener containers are made with; idle containers park with one poll for all when the
     * database's maintenance (when on) makes due jobs ready.
     */
    static QueueListenerContainerFactoryConfigurer configurer(Repositories repositories, NodeRuntime node,
            JobPayloadCodec codec, QueueErrorHandler errorHandler, JobObserver observer, ProcessObserver processObserver,
            PgQueueProperties properties, Supplier<@Nullable PlatformTransactionManager> transactionManager,
            @Nullable VacuumHorizonWatch vacuumHorizon, JdbcWorkflows workflows, Wakeups wakeups,
            List<JobInterceptor> interceptors, Supplier<? extends QueueOperations> template) {
        PgQueueProperties.Maintenance maintenance = properties.getMaintenance();
        return new QueueListenerContainerFactoryConfigurer(repositories, node, codec, errorHandler, observer,
                processObserver, maintenance.isEnabled() ? maintenance.getInterval() : null, transactionManager,
                vacuumHorizon, workflows, wakeups, interceptors, template, properties.getDurable().getChildRecheck());
    }

    /** One database's registry of listener containers. */
    static DefaultListenerContainerRegistry registry(QueueListenerContainerFactory factory,
            ContainerOptionsResolver optionsResolver, JobPayloadCodec codec, NodeRuntime node, Wakeups wakeups) {
        return new DefaultListenerContainerRegistry(factory, optionsResolver, codec, node, wakeups);
    }
}
