package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * pgqueue's access to its tables (one repository per table) and its notification channel, with the statements for the features switched
 * on chosen once here. An implementation detail, not API: its methods change with the schema.
 */
public final class Repositories {

    private final Schema schema;

    private final Jdbc jdbc;

    private final JobTable jobs;

    private final JdbcHistoryRepository history;

    private final JdbcNodeRepository nodes;

    private final JdbcScheduleRepository schedules;

    private final JdbcQueueStatsRepository stats;

    private final JdbcSchemaRepository schemaInfo;

    private final JdbcNotificationRepository notifications;

    private final JdbcVacuumHorizonRepository vacuumHorizon;

    private final JdbcWorkflowRepository workflows;

    private final JdbcBatchRepository batches;

    private final JdbcReplicaRepository replica;

    private final JdbcDurableRepository durable;

    /**
     * @param dataSource the application's DataSource
     * @param schema the schema holding pgqueue's tables
     * @param historyTable the name of pgqueue's Flyway history table in that schema
     * @param counters whether statements append counter deltas
     * @param history whether finished jobs are copied to job_history
     */
    private final FairnessRepository fairness;

    public Repositories(DataSource dataSource, Schema schema, String historyTable, boolean counters, boolean history,
            Duration statementTimeout) {
        this(dataSource, schema, historyTable, counters, history, statementTimeout, null);
    }

    /**
     * @param database the database's name where several are configured, so that every error of its statements
     * (a connection that cannot be had, a statement that fails) names it; null for the only one
     */
    public Repositories(DataSource dataSource, Schema schema, String historyTable, boolean counters, boolean history,
            Duration statementTimeout, @org.jspecify.annotations.Nullable String database) {
        this(dataSource, schema, historyTable, counters, history, statementTimeout, database, false);
    }

    /**
     * @param durableClaims whether LEASE claims commit synchronously (by default they commit asynchronously, and
     * a server crash can lose the last ones)
     */
    public Repositories(DataSource dataSource, Schema schema, String historyTable, boolean counters, boolean history,
            Duration statementTimeout, @org.jspecify.annotations.Nullable String database, boolean durableClaims) {
        this.jdbc = new Jdbc(dataSource, statementTimeout, database);
        Counters counterDeltas = new Counters(counters);
        this.schema = schema;
        this.history = new JdbcHistoryRepository(jdbc, schema, history);
        this.jobs = new JobTable(jdbc, schema, counterDeltas, this.history, durableClaims);
        this.nodes = new JdbcNodeRepository(jdbc, schema);
        this.schedules = new JdbcScheduleRepository(jdbc, schema, jobs.inserts());
        this.stats = new JdbcQueueStatsRepository(jdbc, schema, counterDeltas);
        this.schemaInfo = new JdbcSchemaRepository(jdbc, schema, historyTable);
        this.notifications = new JdbcNotificationRepository(jdbc, schema);
        this.vacuumHorizon = new JdbcVacuumHorizonRepository(jdbc, schema);
        this.workflows = new JdbcWorkflowRepository(jdbc, schema, counterDeltas);
        this.batches = new JdbcBatchRepository(jdbc, schema, counterDeltas);
        this.fairness = new JdbcFairnessRepository(jdbc, schema);
        this.replica = new JdbcReplicaRepository(jdbc, schema);
        this.durable = new JdbcDurableRepository(jdbc, schema);
    }

    /**
     * Who wakes the queues whose jobs a statement made ready beside the rows it changed (a workflow's dependants,
     * a batch's callbacks): {@code Wakeups.jobsReady}, as for any jobs made claimable without a send.
     */
    public void onJobsReady(Consumer<String> wakeQueue) {
        jdbc.onJobsReady(wakeQueue);
    }

    /** The server's replica state (meaningful on a read replica's DataSource). */
    /** Durable execution's steps, waits and events. */
    public DurableRepository durable() {
        return durable;
    }

    public ReplicaRepository replica() {
        return replica;
    }

    public Schema schema() {
        return schema;
    }

    public HistoryRepository history() {
        return history;
    }

    public VacuumHorizonRepository vacuumHorizon() {
        return vacuumHorizon;
    }

    public JobPublishPort publishing() {
        return jobs.publishing();
    }

    public JobEnginePort engine() {
        return jobs.engine();
    }

    public JobMaintenancePort maintenance() {
        return jobs.maintenance();
    }

    public JobAdminPort admin() {
        return jobs.admin();
    }

    public WorkflowRepository workflows() {
        return workflows;
    }

    public BatchRepository batches() {
        return batches;
    }

    public FairnessRepository fairness() {
        return fairness;
    }

    public NodeRepository nodes() {
        return nodes;
    }

    public ScheduleRepository schedules() {
        return schedules;
    }

    public QueueStatsRepository stats() {
        return stats;
    }

    public SchemaRepository schemaInfo() {
        return schemaInfo;
    }

    /**
     * The notification channel, with LISTEN on connections of {@code directSource} (a direct connection beside a
     * transaction pooler) instead of the application's DataSource.
     */
    public NotificationRepository notificationsListeningOn(DataSource directSource, String description) {
        return notifications.listeningOn(directSource, description);
    }

    public NotificationRepository notifications() {
        return notifications;
    }

    /** Every statement of the repositories on pgqueue's tables, for checking them against the transition table. */
    List<Sql> jobTableStatements() {
        return schema.statements();
    }
}
