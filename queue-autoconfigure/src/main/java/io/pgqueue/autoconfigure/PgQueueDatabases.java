package io.pgqueue.autoconfigure;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.JobPayloadCodec;
import io.pgqueue.config.ContainerOptionsResolver;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.internal.admin.JdbcQueueAdmin;
import io.pgqueue.internal.listener.DefaultListenerContainerRegistry;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.internal.node.NodeIdentity;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.observe.SendObserver;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.persistence.Schema;
import io.pgqueue.internal.publish.JdbcBatches;
import io.pgqueue.internal.publish.JdbcQueueTemplate;
import io.pgqueue.internal.routing.DatabaseRouter;
import io.pgqueue.internal.routing.DatabaseUnit;
import io.pgqueue.internal.routing.IdBlocks;
import io.pgqueue.internal.schedule.RecurringJobRunner;
import io.pgqueue.internal.schema.QueueFlywayConfigurationCustomizer;
import io.pgqueue.internal.schema.QueueSchemaInitializer;
import io.pgqueue.internal.schema.QueueSchemaValidator;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.internal.workflow.JdbcWorkflows;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.schedule.RecurringJob;
import io.pgqueue.support.PeriodicLifecycle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * The databases of {@code pgqueue.databases}, each built into its own unit as the auto-configuration builds
 * the default database's: schema migrated (or validated) and its id block applied, then repositories,
 * wake-ups, publishing, administration, node membership, listener registry, maintenance, vacuum watch and
 * recurring jobs. None of it is a bean: it is reached through the routing template, admin and registry.
 * Starts and stops the units' background work with the application; closes the pools it built.
 */
final class PgQueueDatabases implements SmartLifecycle, DisposableBean {

    private static final Log logger = LogFactory.getLog(PgQueueDatabases.class);

    /** The parts of one configured database. */
    record Unit(String name, int idBlock, DataSource dataSource, Set<String> queues, JdbcQueueTemplate template,
            JdbcQueueAdmin admin, DefaultListenerContainerRegistry registry, JdbcWorkflows workflows, JdbcBatches batches,
            Wakeups wakeups,
            List<PeriodicLifecycle> background, @Nullable HikariDataSource ownPool) {
    }

    /** What every unit shares with the default database's beans. */
    record Shared(PgQueueProperties properties, BeanFactory beanFactory, ClassLoader classLoader, boolean migrate,
            List<QueueFlywayConfigurationCustomizer> flywayCustomizers, JobPayloadCodec codec,
            QueueErrorHandler errorHandler, JobObserver observer, ProcessObserver processObserver,
            @Nullable SendObserver sendObserver, ContainerOptionsResolver optionsResolver, List<RecurringJob> recurringJobs) {
    }

    private final DataSource defaultDataSource;

    private final List<Unit> units;

    private final Map<String, String> databaseByQueue = new HashMap<>();

    private volatile boolean running;

    /** With no shared parts, none: the application has only its DataSource. */
    PgQueueDatabases(DataSource defaultDataSource, @Nullable Shared shared) {
        this.defaultDataSource = defaultDataSource;
        List<Unit> built = new ArrayList<>();
        NodeIdentity identity = NodeIdentity.create();
        if (shared == null) {
            this.units = List.of();
            return;
        }
        shared.properties().getDatabases()
            .forEach((name, database) -> database.getQueues().forEach((queue) -> databaseByQueue.put(queue, name)));
        try {
            shared.properties().getDatabases()
                .forEach((name, database) -> built.add(build(name, database, shared, identity, elsewhere(name))));
        }
        catch (RuntimeException ex) {
            built.forEach(PgQueueDatabases::close);
            throw ex;
        }
        this.units = List.copyOf(built);
    }

    boolean isEmpty() {
        return units.isEmpty();
    }

    List<Unit> units() {
        return units;
    }

    /** Whether a queue lives in the default database. */
    boolean inDefaultDatabase(String queue) {
        return !databaseByQueue.containsKey(queue);
    }

    /**
     * Where a queue lives when not in the given database ("database 'reporting'"), else null: what a
     * database's workflows and batches refuse.
     */
    Function<String, @Nullable String> elsewhere(String database) {
        return (queue) -> {
            String owner = databaseByQueue.getOrDefault(queue, PgQueueProperties.Database.DEFAULT);
            return owner.equals(database) ? null : "database '" + owner + "'";
        };
    }

    /** The default database's workflows, refusing nodes elsewhere when there are several databases. */
    JdbcWorkflows placed(JdbcWorkflows workflows) {
        if (!isEmpty()) {
            workflows.setQueuePlacement(elsewhere(PgQueueProperties.Database.DEFAULT));
        }
        return workflows;
    }

    /** The default database's batches, refusing callbacks and members elsewhere when there are several databases. */
    JdbcBatches placed(JdbcBatches batches) {
        if (!isEmpty()) {
            batches.setQueuePlacement(elsewhere(PgQueueProperties.Database.DEFAULT));
        }
        return batches;
    }

    /** One service's router: the default database's bean, and each configured database's own. */
    <T> DatabaseRouter<T> router(T defaultService, Function<Unit, T> service) {
        return new DatabaseRouter<>(new DatabaseUnit<>(PgQueueProperties.Database.DEFAULT, 0, defaultDataSource, Set.of(),
                defaultService),
                units.stream()
                    .map((unit) -> new DatabaseUnit<>(unit.name(), unit.idBlock(), unit.dataSource(), unit.queues(),
                            service.apply(unit)))
                    .toList());
    }

    private static Unit build(String name, PgQueueProperties.Database database, Shared shared, NodeIdentity identity,
            Function<String, @Nullable String> elsewhere) {
        PgQueueProperties properties = shared.properties();
        PgQueueProperties.Schema schema = properties.getSchema();
        HikariDataSource ownPool = null;
        DataSource dataSource;
        if (database.getDataSource() != null) {
            dataSource = shared.beanFactory().getBean(database.getDataSource(), DataSource.class);
        }
        else {
            ownPool = pool(name, database, shared.classLoader());
            dataSource = ownPool;
        }
        try {
            if (shared.migrate()) {
                new QueueSchemaInitializer(dataSource, shared.classLoader(), schema.getName(), schema.getHistoryTable(),
                        shared.flywayCustomizers(), schema.getLockTimeout(), schema.getLockAttempts())
                    .afterPropertiesSet();
            }
            Repositories repositories = new Repositories(dataSource, new Schema(schema.getName()), schema.getHistoryTable(),
                    properties.getCounters().isEnabled(), properties.getHistory().isEnabled(),
                    properties.getStatementTimeout());
            if (!shared.migrate()) {
                new QueueSchemaValidator(repositories.schemaInfo(), schema.getName()).afterPropertiesSet();
            }
            try {
                repositories.schemaInfo().useIdBlock(IdBlocks.first(database.getIdBlock()), IdBlocks.last(database.getIdBlock()));
            }
            catch (IllegalStateException ex) {
                throw new InvalidConfigurationPropertyValueException("pgqueue.databases." + name + ".id-block",
                        database.getIdBlock(), ex.getMessage());
            }
            PgQueueProperties.Listener listener = properties.getListener();
            Wakeups wakeups = new Wakeups(repositories.notifications(), listener.isNotify(), listener.getNotifyDebounce());
            JdbcQueueTemplate template = new JdbcQueueTemplate(repositories.publishing(), repositories.admin(),
                    shared.codec(), wakeups, properties.getTemplate().getBatchChunkSize());
            template.setFairQueues(PgQueueAutoConfiguration.fairQueues(properties));
            if (shared.sendObserver() != null) {
                template.setObserver(shared.sendObserver());
            }
            PgQueueProperties.Health health = properties.getHealth();
            VacuumHorizonWatch vacuumHorizon = new VacuumHorizonWatch(repositories.vacuumHorizon(),
                    health.getVacuumCheckInterval(), health.getVacuumHoldWarning());
            JdbcQueueAdmin admin = new JdbcQueueAdmin(repositories, wakeups, vacuumHorizon);
            List<PeriodicLifecycle> background = new ArrayList<>();
            background.add(vacuumHorizon);
            PgQueueProperties.Maintenance maintenance = properties.getMaintenance();
            if (maintenance.isEnabled()) {
                background.add(PgQueueAutoConfiguration.maintenance(repositories, admin, properties));
            }
            List<RecurringJob> recurringJobs = shared.recurringJobs().stream()
                .filter((job) -> database.getQueues().contains(job.queue()))
                .toList();
            if (properties.getScheduler().isEnabled() && !recurringJobs.isEmpty()) {
                background.add(new RecurringJobRunner(repositories.schedules(), wakeups, shared.codec(),
                        properties.getScheduler().getPollInterval(), recurringJobs));
            }
            NodeRuntime node = QueueListenerConfiguration.nodeRuntime(repositories, identity, properties);
            JdbcWorkflows workflows = new JdbcWorkflows(repositories.workflows(), shared.codec(), wakeups);
            workflows.setQueuePlacement(elsewhere);
            JdbcBatches batches = new JdbcBatches(repositories.batches(), template, shared.codec(),
                    database.getQueues()::contains);
            batches.setQueuePlacement(elsewhere);
            JdbcTransactionManager transactionManager = new JdbcTransactionManager(dataSource);
            QueueListenerContainerFactoryConfigurer configurer = new QueueListenerContainerFactoryConfigurer(repositories,
                    node, shared.codec(), shared.errorHandler(), shared.observer(), shared.processObserver(),
                    maintenance.isEnabled() ? maintenance.getInterval() : null, () -> transactionManager, vacuumHorizon,
                    workflows);
            DefaultListenerContainerRegistry registry = new DefaultListenerContainerRegistry(configurer.createFactory(),
                    shared.optionsResolver(), shared.codec(), node, wakeups);
            return new Unit(name, database.getIdBlock(), dataSource, new LinkedHashSet<>(database.getQueues()), template,
                    admin, registry, workflows, batches, wakeups, background, ownPool);
        }
        catch (RuntimeException | Error ex) {
            if (ownPool != null) {
                ownPool.close();
            }
            throw ex;
        }
        catch (Exception ex) {
            if (ownPool != null) {
                ownPool.close();
            }
            throw new IllegalStateException("Could not prepare pgqueue's database '" + name + "': " + ex.getMessage(), ex);
        }
    }

    private static HikariDataSource pool(String name, PgQueueProperties.Database database, ClassLoader classLoader) {
        if (!ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", classLoader)) {
            throw new InvalidConfigurationPropertyValueException("pgqueue.databases." + name + ".url", database.getUrl(),
                    "a pool pgqueue builds needs HikariCP on the classpath (spring-boot-starter-jdbc); or give "
                            + "pgqueue.databases." + name + ".data-source");
        }
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName("pgqueue-" + name);
        pool.setJdbcUrl(database.getUrl());
        pool.setUsername(database.getUsername());
        pool.setPassword(database.getPassword());
        pool.setMaximumPoolSize(database.getMaximumPoolSize());
        pool.setConnectionTimeout(database.getConnectionTimeout().toMillis());
        // a database down at startup fails startup (its schema cannot be checked), as the default database does
        pool.setInitializationFailTimeout(database.getConnectionTimeout().toMillis());
        return pool;
    }

    /** The recurring jobs of the default database: those whose queue no configured database lists. */
    Predicate<RecurringJob> inDefaultDatabase() {
        return (job) -> inDefaultDatabase(job.queue());
    }

    @Override
    public synchronized void start() {
        running = true;
        units.forEach((unit) -> unit.background().forEach(PeriodicLifecycle::start));
    }

    @Override
    public synchronized void stop() {
        running = false;
        units.forEach((unit) -> unit.background().forEach(PeriodicLifecycle::stop));
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Before the listener registries start, after they stop. */
    @Override
    public int getPhase() {
        return QueueListenerContainerRegistry.PHASE - 100;
    }

    @Override
    public void destroy() {
        units.forEach(PgQueueDatabases::close);
    }

    private static void close(Unit unit) {
        try {
            unit.wakeups().destroy();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not close the wake-ups of pgqueue's database '" + unit.name() + "'", ex);
        }
        if (unit.ownPool() != null) {
            unit.ownPool().close();
        }
    }
}
