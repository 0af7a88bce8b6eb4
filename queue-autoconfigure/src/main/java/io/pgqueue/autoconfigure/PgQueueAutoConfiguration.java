package io.pgqueue.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.QueueEvents;
import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.config.ContainerOptionsResolver;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.listener.JobInterceptor;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.autoconfigure.aot.PgQueueRuntimeHints;
import io.pgqueue.internal.admin.JdbcQueueAdmin;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.internal.node.NodeIdentity;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.observe.SendObserver;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.publish.JdbcBatches;
import io.pgqueue.internal.publish.JdbcQueueEvents;
import io.pgqueue.internal.publish.JdbcQueueTemplate;
import io.pgqueue.internal.routing.RoutingBatches;
import io.pgqueue.internal.routing.RoutingQueueAdmin;
import io.pgqueue.internal.routing.RoutingQueueTemplate;
import io.pgqueue.internal.routing.RoutingWorkflows;
import io.pgqueue.internal.workflow.JdbcWorkflows;
import io.pgqueue.internal.schedule.RecurringJobRunner;
import io.pgqueue.internal.schema.QueueFlywayConfigurationCustomizer;
import io.pgqueue.internal.schema.QueueSchemaInitializer;
import io.pgqueue.internal.schema.QueueSchemaValidator;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.schedule.QueueScheduler;
import io.pgqueue.schedule.RecurringJob;
import io.pgqueue.workflow.WorkflowOperations;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of pgqueue: schema, publishing, administration, maintenance and recurring jobs, with
 * the listeners in {@link QueueListenerConfiguration}. Registers none of the infrastructure types Boot
 * watches ({@code Flyway}, {@code JdbcTemplate}, {@code JdbcClient}, {@code TaskScheduler}, transaction
 * managers, JSON mappers); pgqueue keeps its own as private fields. Its repositories and wake-ups are
 * internal beans, not meant to be replaced; the user-facing beans back off when the application defines
 * its own.
 */
@AutoConfiguration(
        after = { DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                TransactionAutoConfiguration.class },
        afterName = { "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
                "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration" })
@ConditionalOnClass({ DataSource.class, JdbcTemplate.class, JsonMapper.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "pgqueue.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PgQueueProperties.class)
@Import({ DatabaseInitializationDependencyConfigurer.class, QueueListenerConfiguration.class,
        QueueObservationConfiguration.class })
@ImportRuntimeHints(PgQueueRuntimeHints.class)
public final class PgQueueAutoConfiguration {

    @Bean
    Repositories pgqueueRepositories(DataSource dataSource, PgQueueProperties properties) {
        return DatabaseParts.repositories(dataSource, properties, PgQueueProperties.Database.DEFAULT);
    }

    @Bean
    Wakeups pgqueueWakeups(Repositories repositories, PgQueueProperties properties, DataSource dataSource,
            BeanFactory beanFactory, Environment environment, ResourceLoader resourceLoader) {
        return DatabaseParts.wakeups(repositories, properties, ListenConnection.of(properties.getListener().notifyConnection(),
                "pgqueue.listener", beanFactory, () -> {
                    ListenConnection.Credentials pool = ListenConnection.credentialsOf(dataSource,
                            resourceLoader.getClassLoader());
                    return (pool != null) ? pool : new ListenConnection.Credentials(
                            environment.getProperty("spring.datasource.username"),
                            environment.getProperty("spring.datasource.password"));
                }));
    }

    @Bean
    @ConditionalOnMissingBean
    JobPayloadCodec jobPayloadCodec(ObjectProvider<JsonMapper> jsonMapper, PgQueueProperties properties) {
        // the application's mapper when it has one; a private default otherwise, never registered as a bean
        JsonMapper mapper = jsonMapper.getIfUnique(() -> JsonMapper.builder().findAndAddModules().build());
        return new JobPayloadCodec(mapper, properties.getTemplate().getMaxPayloadSize().toBytes(),
                properties.getListener().getTrustedPackages());
    }

    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    QueueTemplate queueTemplate(Repositories repositories, JobPayloadCodec codec, Wakeups wakeups,
            PgQueueProperties properties, ObjectProvider<SendObserver> sendObserver, PgQueueDatabases databases) {
        JdbcQueueTemplate template = DatabaseParts.template(repositories, codec, wakeups, properties);
        sendObserver.ifAvailable((observer) -> template.setObserver(databases.observingDefault(observer)));
        return databases.isEmpty() ? template
                : new RoutingQueueTemplate(databases.router((QueueTemplate) template, PgQueueDatabases.Unit::template));
    }

    /**
     * Events for jobs that await them (durable execution), on the application's DataSource: a job of another
     * database of {@code pgqueue.databases} awaits events emitted in its own database ({@code pgqueue.emit()}).
     */
    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    QueueEvents queueEvents(Repositories repositories, JobPayloadCodec codec, PgQueueProperties properties) {
        return new JdbcQueueEvents(repositories.durable(), codec, properties.getDurable().getEventRetention());
    }

    /**
     * The databases of {@code pgqueue.databases}, each its own unit; none (and nothing routed) when the
     * application has only its DataSource.
     */
    @Bean
    @DependsOnDatabaseInitialization
    PgQueueDatabases pgqueueDatabases(DataSource dataSource, PgQueueProperties properties, BeanFactory beanFactory,
            ResourceLoader resourceLoader, ObjectProvider<QueueFlywayConfigurationCustomizer> customizers,
            JobPayloadCodec codec, QueueErrorHandler errorHandler, ObjectProvider<JobObserver> observers,
            ObjectProvider<ProcessObserver> processObserver, ObjectProvider<SendObserver> sendObserver,
            ContainerOptionsResolver optionsResolver, ObjectProvider<RecurringJob> recurringJobs,
            ObjectProvider<NodeRuntime> nodeRuntime, ObjectProvider<JobInterceptor> interceptors) {
        if (properties.getDatabases().isEmpty()) {
            return new PgQueueDatabases(dataSource, null);
        }
        ClassLoader classLoader = resourceLoader.getClassLoader();
        NodeRuntime node = nodeRuntime.getIfAvailable();
        boolean migrate = properties.getSchema().isMigrate()
                && ClassUtils.isPresent("org.flywaydb.core.Flyway", classLoader);
        return new PgQueueDatabases(dataSource, new PgQueueDatabases.Shared(properties, beanFactory, classLoader, migrate,
                customizers.orderedStream().toList(), codec, errorHandler,
                JobObserver.composite(observers.orderedStream().toList()),
                processObserver.getIfAvailable(() -> ProcessObserver.NONE), sendObserver.getIfAvailable(), optionsResolver,
                recurringJobs(properties, recurringJobs),
                // this JVM is one node in every database: the same id in each, one row in the merged listing
                (node != null) ? node.identity() : NodeIdentity.create(), interceptors.orderedStream().toList()));
    }

    /** Workflows: {@link WorkflowOperations} for applications, and the workflow context of nodes' handlers. */
    @Bean
    @ConditionalOnMissingBean(WorkflowOperations.class)
    @DependsOnDatabaseInitialization
    WorkflowOperations pgqueueWorkflows(Repositories repositories, JobPayloadCodec codec, Wakeups wakeups,
            PgQueueDatabases databases) {
        JdbcWorkflows workflows = databases.placed(DatabaseParts.workflows(repositories, codec, wakeups));
        return databases.isEmpty() ? workflows
                : new RoutingWorkflows(databases.router((WorkflowOperations) workflows, PgQueueDatabases.Unit::workflows));
    }

    /**
     * Batches: {@link BatchOperations} for applications. A callback's queue must be known: configured under
     * {@code pgqueue.queues}, listened to by this application or another node, or sent to before.
     */
    @Bean
    @ConditionalOnMissingBean(BatchOperations.class)
    @DependsOnDatabaseInitialization
    BatchOperations pgqueueBatches(Repositories repositories, ObjectProvider<QueueTemplate> template, JobPayloadCodec codec,
            Wakeups wakeups, PgQueueProperties properties, ObjectProvider<QueueListenerContainerRegistry> registry,
            PgQueueDatabases databases) {
        JdbcQueueTemplate members = (template.getIfUnique() instanceof JdbcQueueTemplate jdbcTemplate) ? jdbcTemplate
                : DatabaseParts.template(repositories, codec, wakeups, properties);
        JdbcBatches batches = databases.placed(DatabaseParts.batches(repositories, members, codec,
                (queue) -> properties.getQueues().containsKey(queue)
                || registry.stream().anyMatch((containers) -> containers.getListenerContainers().stream()
                    .anyMatch((container) -> container.queue().equals(queue)))
                || repositories.nodes().nodes().stream().anyMatch((node) -> node.containers().stream()
                    .anyMatch((container) -> container.queue().equals(queue)))
                || repositories.stats().counts().stream().anyMatch((counts) -> counts.queue().equals(queue))));
        return databases.isEmpty() ? batches
                : new RoutingBatches(databases.router((BatchOperations) batches, PgQueueDatabases.Unit::batches));
    }

    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    QueueAdmin queueAdmin(Repositories repositories, Wakeups wakeups, VacuumHorizonWatch vacuumHorizon,
            PgQueueDatabases databases, PgQueueProperties properties, BeanFactory beanFactory,
            ResourceLoader resourceLoader) {
        QueueAdmin admin = databases.admin(repositories, wakeups, vacuumHorizon, properties, beanFactory,
                resourceLoader.getClassLoader());
        return databases.isEmpty() ? admin : RoutingQueueAdmin.of(databases.router(admin, PgQueueDatabases.Unit::admin));
    }

    @Bean
    @DependsOnDatabaseInitialization
    VacuumHorizonWatch pgqueueVacuumHorizonWatch(Repositories repositories, PgQueueProperties properties) {
        return DatabaseParts.vacuumHorizonWatch(repositories, properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "pgqueue.maintenance.enabled", matchIfMissing = true)
    @DependsOnDatabaseInitialization
    QueueMaintenance queueMaintenance(Repositories repositories, PgQueueProperties properties, Wakeups wakeups,
            JobPayloadCodec codec) {
        // the default database's maintenance reconciles its own counters: each configured database's unit its own
        return DatabaseParts.maintenance(repositories, JdbcQueueAdmin.queues(repositories, wakeups), properties,
                DatabaseParts.workflows(repositories, codec, wakeups));
    }

    @Bean
    @ConditionalOnMissingBean(QueueScheduler.class)
    @ConditionalOnBooleanProperty(name = "pgqueue.scheduler.enabled", matchIfMissing = true)
    @DependsOnDatabaseInitialization
    RecurringJobRunner queueScheduler(Repositories repositories, Wakeups wakeups, JobPayloadCodec codec,
            PgQueueProperties properties, ObjectProvider<RecurringJob> recurringJobs, PgQueueDatabases databases) {
        List<RecurringJob> jobs = recurringJobs(properties, recurringJobs).stream()
            .filter(databases.inDefaultDatabase())
            .toList();
        return databases.placed(DatabaseParts.scheduler(repositories, wakeups, codec, properties, jobs));
    }

    /** The configured recurring jobs and the application's {@link RecurringJob} beans. */
    static List<RecurringJob> recurringJobs(PgQueueProperties properties, ObjectProvider<RecurringJob> recurringJobs) {
        List<RecurringJob> jobs = new ArrayList<>();
        properties.getSchedules().forEach((name, schedule) -> jobs.add(schedule.toRecurringJob(name)));
        recurringJobs.orderedStream().forEach(jobs::add);
        return jobs;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.flywaydb.core.Flyway")
    @ConditionalOnBooleanProperty(name = "pgqueue.schema.migrate", matchIfMissing = true)
    static class SchemaMigrationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        QueueSchemaInitializer queueSchemaInitializer(DataSource dataSource, ResourceLoader resourceLoader,
                PgQueueProperties properties, ObjectProvider<QueueFlywayConfigurationCustomizer> customizers) {
            return DatabaseParts.schemaInitializer(dataSource, resourceLoader.getClassLoader(), properties,
                    customizers.orderedStream().toList());
        }

    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(SchemaNotMigratedCondition.class)
    static class SchemaValidationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        QueueSchemaValidator queueSchemaValidator(Repositories repositories) {
            return new QueueSchemaValidator(repositories.schemaInfo(), repositories.schema().name());
        }
    }

    static final class SchemaNotMigratedCondition extends AnyNestedCondition {

        SchemaNotMigratedCondition() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBooleanProperty(name = "pgqueue.schema.migrate", havingValue = false)
        static class MigrationSwitchedOff {
        }

        @ConditionalOnMissingClass("org.flywaydb.core.Flyway")
        static class FlywayMissing {
        }
    }
}
