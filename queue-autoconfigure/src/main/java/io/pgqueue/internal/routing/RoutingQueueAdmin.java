package io.pgqueue.internal.routing;

import io.pgqueue.admin.ComposedQueueAdmin;
import io.pgqueue.admin.QueueAdmin;

/**
 * The application's {@link QueueAdmin} when queues live in several databases, one routing role per role of
 * {@link QueueAdmin} over one {@link AdminRoutes}: a call about a queue goes to its database, a call about a job,
 * workflow or batch to the database of its id's block; a listing asks every database and merges the answers,
 * leaving out a database that does not answer (so that one database down does not blank the dashboard of the
 * others; {@link QueueAdmin#databases()} says which one is down).
 */
public final class RoutingQueueAdmin {

    private RoutingQueueAdmin() {
    }

    public static QueueAdmin of(DatabaseRouter<QueueAdmin> router) {
        AdminRoutes routes = new AdminRoutes(router);
        return new ComposedQueueAdmin(new RoutingJobsAdmin(routes), new RoutingQueuesAdmin(routes),
                new RoutingSchedulesAdmin(routes), new RoutingWorkflowsAdmin(routes), new RoutingBatchesAdmin(routes),
                new RoutingFairnessAdmin(routes), new RoutingClusterAdmin(routes), new RoutingDurableAdmin(routes));
    }
}
