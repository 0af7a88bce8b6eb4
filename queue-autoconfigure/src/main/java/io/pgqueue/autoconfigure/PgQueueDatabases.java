package io.pgqueue.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.JobPayloadCodec;
import io.pgqueue.config.ContainerOptionsResolver;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.admin.JdbcQueueAdmin;
import io.pgqueue.internal.listener.DefaultListenerContainerRegistry;
import io.pgqueue.internal.node.NodeIdentity;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.observe.SendObserver;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.publish.JdbcBatches;
import io.pgqueue.internal.publish.JdbcQueueTemplate;
import io.pgqueue.internal.routing.DatabaseRouter;
import io.pgqueue.internal.routing.DatabaseUnit;
import io.pgqueue.internal.routing.IdBlocks;
import io.pgqueue.internal.schedule.RecurringJobRunner;
import io.pgqueue.internal.schema.QueueFlywayConfigurationCustomizer;
import io.pgqueue.internal.schema.QueueSchemaValidator;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.internal.workflow.JdbcWorkflows;
import io.pgqueue.listener.JobInterceptor;
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
final class PgQueueDatabases implements PgQueueDataSources, SmartLifecycle, DisposableBean {

    private static final Log logger = LogFactory.getLog(PgQueueDatabases.class);

    /** The parts of one configured database. */
    record Unit(String name, int idBlock, DataSource dataSource, Set<String> queues, JdbcQueueTemplate template,
            QueueAdmin admin, DefaultListenerContainerRegistry registry, JdbcWorkflows workflows, JdbcBatches batches,
            @Nullable RecurringJobRunner scheduler, Wakeups wakeups, List<PeriodicLifecycle> background,
            List<HikariDataSource> ownPools) {
    }

    /** What every unit shares with the default database's beans. */
    record Shared(PgQueueProperties properties, BeanFactory beanFactory, ClassLoader classLoader, boolean migrate,
            List<QueueFlywayConfigurationCustomizer> flywayCustomizers, JobPayloadCodec codec,
            QueueErrorHandler errorHandler, JobObserver observer, ProcessObserver processObserver,
            @Nullable SendObserver sendObserver, ContainerOptionsResolver optionsResolver, List<RecurringJob> recurringJobs,
            NodeIdentity identity, List<JobInterceptor> interceptors) {
    }

    private final DataSource defaultDataSource;

    private final List<Unit> units;

    private final @Nullable PgQueueProperties properties;

    private volatile boolean running;

    /** Pools built for the default database (its replica's). */
    private final List<HikariDataSource> defaultPools = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** With no shared parts, none: the application has only its DataSource. */
    PgQueueDatabases(DataSource defaultDataSource, @Nullable Shared shared) {
        this.defaultDataSource = defaultDataSource;
        List<Unit> built = new ArrayList<>();
        if (shared == null) {
            this.units = List.of();
            this.properties = null;
            return;
        }
        this.properties = shared.properties();
        try {
            shared.properties().getDatabases()
                .forEach((name, database) -> built.add(build(name, database, shared, shared.identity(), elsewhere(name))));
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

    /** The configured database a queue lives in, or null for the default database. */
    private @Nullable Unit unitOf(String queue) {
        return units.stream().filter((unit) -> unit.queues().contains(queue)).findFirst().orElse(null);
    }

    /** The name of the database a queue lives in. */
    private String databaseOf(String queue) {
        return (properties != null) ? properties.databaseOf(queue) : PgQueueProperties.Database.DEFAULT;
    }

    @Override
    public DataSource forQueue(String queue) {
        Unit unit = unitOf(queue);
        return (unit != null) ? unit.dataSource() : defaultDataSource;
    }

    @Override
    public List<DataSource> all() {
        List<DataSource> all = new ArrayList<>();
        all.add(defaultDataSource);
        units.forEach((unit) -> all.add(unit.dataSource()));
        return all;
    }

    /** Observations of the default database's sends name it when there are several databases. */
    SendObserver observingDefault(SendObserver observer) {
        return isEmpty() ? observer : observer.withDatabase(PgQueueProperties.Database.DEFAULT);
    }

    /** Observations of the default database's handler runs name it when there are several databases. */
    ProcessObserver observingDefault(ProcessObserver observer) {
        return isEmpty() ? observer : observer.withDatabase(PgQueueProperties.Database.DEFAULT);
    }

    /** Whether a queue lives in the default database. */
    boolean inDefaultDatabase(String queue) {
        return databaseOf(queue).equals(PgQueueProperties.Database.DEFAULT);
    }

    /**
     * Where a queue lives when not in the given database ("database 'reporting'"), else null: what a
     * database's workflows and batches refuse.
     */
    Function<String, @Nullable String> elsewhere(String database) {
        return (queue) -> {
            String owner = databaseOf(queue);
            return owner.equals(database) ? null : "database '" + owner + "'";
        };
    }

    /** The default database's scheduler, handing a recurring job of another database's queue to that one's. */
    RecurringJobRunner placed(RecurringJobRunner scheduler) {
        if (!isEmpty()) {
            scheduler.setQueuePlacement((queue) -> {
                Unit unit = unitOf(queue);
                return (unit != null) ? unit.scheduler() : null;
            });
        }
        return scheduler;
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
        List<HikariDataSource> ownPools = new ArrayList<>();
        DataSource dataSource;
        if (database.getDataSource() != null) {
            dataSource = DataSourceBeans.named(shared.beanFactory(), "pgqueue.databases." + name + ".data-source",
                    database.getDataSource());
        }
        else {
            HikariDataSource pool = pool("pgqueue.databases." + name, "pgqueue-" + name, database.getUrl(),
                    database.getUsername(), database.getPassword(), database.getMaximumPoolSize(),
                    database.getConnectionTimeout(), shared.classLoader());
            // a database down at startup fails startup (its schema cannot be checked), as the default database does
            pool.setInitializationFailTimeout(database.getConnectionTimeout().toMillis());
            ownPools.add(pool);
            dataSource = pool;
        }
        try {
            if (shared.migrate()) {
                DatabaseParts.schemaInitializer(dataSource, shared.classLoader(),
                        properties, shared.flywayCustomizers()).afterPropertiesSet();
            }
            Repositories repositories = DatabaseParts.repositories(dataSource, properties, name);
            if (!shared.migrate()) {
                new QueueSchemaValidator(repositories.schemaInfo(), repositories.schema().name()).afterPropertiesSet();
            }
            try {
                repositories.schemaInfo().useIdBlock(IdBlocks.first(database.getIdBlock()), IdBlocks.last(database.getIdBlock()),
                        properties.getSchema().getLockTimeout());
            }
            catch (IllegalStateException ex) {
                throw new InvalidConfigurationPropertyValueException("pgqueue.databases." + name + ".id-block",
                        database.getIdBlock(), ex.getMessage());
            }
            DataSource databaseSource = dataSource;
            Wakeups wakeups = DatabaseParts.wakeups(repositories, properties,
                    ListenConnection.of(database.notifyConnection(), "pgqueue.databases." + name, shared.beanFactory(),
                            () -> {
                                if (database.getUrl() != null) {
                                    return new ListenConnection.Credentials(database.getUsername(), database.getPassword());
                                }
                                ListenConnection.Credentials pool = ListenConnection.credentialsOf(databaseSource,
                                        shared.classLoader());
                                return (pool != null) ? pool : ListenConnection.Credentials.NONE;
                            }));
            JdbcQueueTemplate template = DatabaseParts.template(repositories, shared.codec(), wakeups, properties);
            if (shared.sendObserver() != null) {
                template.setObserver(shared.sendObserver().withDatabase(name));
            }
            VacuumHorizonWatch vacuumHorizon = DatabaseParts.vacuumHorizonWatch(repositories, properties);
            QueueAdmin admin = admin(name, "pgqueue.databases." + name + ".replica", database.getReplica(), repositories,
                    wakeups, vacuumHorizon, properties, shared.beanFactory(), shared.classLoader(), ownPools);
            List<PeriodicLifecycle> background = new ArrayList<>();
            background.add(vacuumHorizon);
            PgQueueProperties.Maintenance maintenance = properties.getMaintenance();
            if (maintenance.isEnabled()) {
                background.add(DatabaseParts.maintenance(repositories, JdbcQueueAdmin.queues(repositories, wakeups),
                        properties, DatabaseParts.workflows(repositories, shared.codec(), wakeups)));
            }
            List<RecurringJob> recurringJobs = shared.recurringJobs().stream()
                .filter((job) -> database.getQueues().contains(job.queue()))
                .toList();
            RecurringJobRunner scheduler = null;
            if (properties.getScheduler().isEnabled()) {
                scheduler = DatabaseParts.scheduler(repositories, wakeups, shared.codec(), properties, recurringJobs);
                background.add(scheduler);
            }
            NodeRuntime node = DatabaseParts.nodeRuntime(repositories, identity, properties);
            JdbcWorkflows workflows = DatabaseParts.workflows(repositories, shared.codec(), wakeups);
            workflows.setQueuePlacement(elsewhere);
            JdbcBatches batches = DatabaseParts.batches(repositories, template, shared.codec(),
                    database.getQueues()::contains);
            batches.setQueuePlacement(elsewhere);
            JdbcTransactionManager transactionManager = new JdbcTransactionManager(dataSource);
            QueueListenerContainerFactoryConfigurer configurer = DatabaseParts.configurer(repositories, node,
                    shared.codec(), shared.errorHandler(), shared.observer(), shared.processObserver().withDatabase(name),
                    properties, () -> transactionManager, vacuumHorizon, workflows, wakeups, shared.interceptors(),
                    () -> template);
            DefaultListenerContainerRegistry registry = DatabaseParts.registry(configurer.createFactory(),
                    shared.optionsResolver(), shared.codec(), node, wakeups);
            registry.setDatabase(name);
            return new Unit(name, database.getIdBlock(), dataSource, new LinkedHashSet<>(database.getQueues()), template,
                    admin, registry, workflows, batches, scheduler, wakeups, background, ownPools);
        }
        catch (RuntimeException | Error ex) {
            ownPools.forEach(HikariDataSource::close);
            throw ex;
        }
        catch (Exception ex) {
            ownPools.forEach(HikariDataSource::close);
            throw new IllegalStateException("Could not prepare pgqueue's database '" + name + "': " + ex.getMessage(), ex);
        }
    }

    /** The DataSource bean a property names; a name that is no such bean fails startup naming the property. */
    private static HikariDataSource pool(String prefix, String poolName, @Nullable String url, @Nullable String username,
            @Nullable String password, int maximumPoolSize, Duration connectionTimeout, ClassLoader classLoader) {
        if (!ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", classLoader)) {
            throw new InvalidConfigurationPropertyValueException(prefix + ".url", url,
                    "a pool pgqueue builds needs HikariCP on the classpath (spring-boot-starter-jdbc); or give "
                            + prefix + ".data-source");
        }
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName(poolName);
        pool.setJdbcUrl(url);
        pool.setUsername(username);
        pool.setPassword(password);
        pool.setMaximumPoolSize(maximumPoolSize);
        pool.setConnectionTimeout(connectionTimeout.toMillis());
        return pool;
    }

    /**
     * A database's admin with its listings read from its replica when one is configured; the primary's admin
     * otherwise. A pool built for the replica joins {@code ownPools}; it connects lazily, so that a replica down
     * fails listings, not startup.
     */
    static QueueAdmin admin(String database, String prefix, PgQueueProperties.Replica replica,
            Repositories repositories, Wakeups wakeups, VacuumHorizonWatch vacuumHorizon, PgQueueProperties properties,
            BeanFactory beanFactory, ClassLoader classLoader, List<HikariDataSource> ownPools) {
        if (!replica.isConfigured()) {
            return JdbcQueueAdmin.of(repositories, wakeups, vacuumHorizon, properties.getDurable().getEventRetention());
        }
        DataSource dataSource;
        if (replica.getDataSource() != null) {
            dataSource = DataSourceBeans.named(beanFactory, prefix + ".data-source", replica.getDataSource());
        }
        else {
            HikariDataSource pool = pool(prefix, "pgqueue-" + database + "-replica", replica.getUrl(),
                    replica.getUsername(), replica.getPassword(), replica.getMaximumPoolSize(),
                    replica.getConnectionTimeout(), classLoader);
            pool.setReadOnly(true);
            pool.setInitializationFailTimeout(-1);
            ownPools.add(pool);
            dataSource = pool;
        }
        return JdbcQueueAdmin.readingFromReplica(database, repositories,
                DatabaseParts.repositories(dataSource, properties, database + " (replica)"), wakeups, vacuumHorizon,
                properties.getDurable().getEventRetention());
    }

    /** The default database's admin, reading listings from its replica when {@code pgqueue.replica} names one. */
    QueueAdmin admin(Repositories repositories, Wakeups wakeups, VacuumHorizonWatch vacuumHorizon,
            PgQueueProperties properties, BeanFactory beanFactory, ClassLoader classLoader) {
        return admin(PgQueueProperties.Database.DEFAULT, "pgqueue.replica", properties.getReplica(), repositories,
                wakeups, vacuumHorizon, properties, beanFactory, classLoader, defaultPools);
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
        defaultPools.forEach(HikariDataSource::close);
    }

    private static void close(Unit unit) {
        try {
            unit.wakeups().destroy();
        }
        catch (RuntimeException ex) {
            logger.warn("Could not close the wake-ups of pgqueue's database '" + unit.name() + "'", ex);
        }
        unit.ownPools().forEach(HikariDataSource::close);
    }
}
