package io.pgqueue.internal.admin;

import java.time.Duration;

import io.pgqueue.admin.ComposedQueueAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.admin.QueuesAdmin;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.internal.schedule.ScheduleOperations;
import io.pgqueue.internal.wakeup.Wakeups;
import org.jspecify.annotations.Nullable;

/**
 * One database's {@link QueueAdmin}, put together from its roles over the database's repositories. With a read
 * replica, the listings that page through many rows (jobs by query, dead jobs, workflows, batches and their
 * members) are read from the replica, and may lag it; every other call, writes and single lookups included, goes
 * to the primary. Claims, sends and acknowledgements never pass here.
 */
public final class JdbcQueueAdmin {

    private JdbcQueueAdmin() {
    }

    /**
     * The admin of one database.
     * @param vacuumHorizon the node's watch of what holds back vacuum, or null to look each time asked
     */
    public static QueueAdmin of(Repositories repositories, Wakeups wakeups, @Nullable VacuumHorizonWatch vacuumHorizon) {
        return of(repositories, wakeups, vacuumHorizon, DEFAULT_EVENT_RETENTION);
    }

    /**
     * The admin of one database.
     * @param vacuumHorizon the node's watch of what holds back vacuum, or null to look each time asked
     * @param eventRetention how long an event an operator emits is kept
     */
    public static QueueAdmin of(Repositories repositories, Wakeups wakeups, @Nullable VacuumHorizonWatch vacuumHorizon,
            Duration eventRetention) {
        return of(repositories, repositories, null, wakeups, vacuumHorizon, eventRetention);
    }

    /** {@code pgqueue.durable.event-retention}'s default. */
    private static final Duration DEFAULT_EVENT_RETENTION = Duration.ofDays(7);

    /** The admin of one database whose listings are read from its replica, whose repositories are given. */
    public static QueueAdmin readingFromReplica(String database, Repositories primary, Repositories replica,
            Wakeups wakeups, @Nullable VacuumHorizonWatch vacuumHorizon, Duration eventRetention) {
        return of(primary, replica, new JdbcClusterAdmin.Replica(database, replica.replica()), wakeups,
                vacuumHorizon, eventRetention);
    }

    /** The queues of one database alone, e.g. for its maintenance's counter reconciliation. */
    public static QueuesAdmin queues(Repositories repositories, Wakeups wakeups) {
        return of(repositories, wakeups, null);
    }

    private static QueueAdmin of(Repositories primary, Repositories listings, JdbcClusterAdmin.@Nullable Replica replica,
            Wakeups wakeups, @Nullable VacuumHorizonWatch vacuumHorizon, Duration eventRetention) {
        JdbcClusterAdmin cluster = new JdbcClusterAdmin(primary.nodes(), primary.schemaInfo(), primary.vacuumHorizon(),
                vacuumHorizon, replica);
        JdbcSchedulesAdmin schedules = new JdbcSchedulesAdmin(new ScheduleOperations(primary.schedules(), wakeups));
        return new ComposedQueueAdmin(new JdbcJobsAdmin(primary.admin(), listings.admin(), wakeups),
                new JdbcQueuesAdmin(primary.stats(), cluster, schedules, wakeups), schedules,
                new JdbcWorkflowsAdmin(primary.workflows(), listings.workflows(), primary.admin(), wakeups),
                new JdbcBatchesAdmin(primary.batches(), listings.batches(), primary.admin(), wakeups),
                new JdbcFairnessAdmin(primary.fairness(), wakeups), cluster,
                new JdbcDurableAdmin(primary.durable(), eventRetention));
    }
}
