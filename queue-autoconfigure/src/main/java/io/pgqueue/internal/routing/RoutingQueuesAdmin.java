package io.pgqueue.internal.routing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.admin.QueuesAdmin;
import io.pgqueue.model.QueueCounts;
import io.pgqueue.model.QueueStats;

/**
 * Queues across databases: a queue goes to its database; listings merge every database that answers.
 */
final class RoutingQueuesAdmin implements QueuesAdmin {

    private final AdminRoutes routes;

    RoutingQueuesAdmin(AdminRoutes routes) {
        this.routes = routes;
    }

    @Override
    public List<QueueStats> queues() {
        return routes.all(QueueAdmin::queues);
    }

    @Override
    public Optional<QueueStats> queue(String queue) {
        return routes.of(queue).queue(queue);
    }

    @Override
    public void pause(String queue) {
        routes.of(queue).pause(queue);
    }

    @Override
    public void resume(String queue) {
        routes.of(queue).resume(queue);
    }

    @Override
    public boolean isPaused(String queue) {
        return routes.of(queue).isPaused(queue);
    }

    @Override
    public Set<String> pausedQueues() {
        return new LinkedHashSet<>(routes.all((admin) -> List.copyOf(admin.pausedQueues())));
    }

    @Override
    public List<QueueCounts> reconcile() {
        List<QueueCounts> counts = new ArrayList<>();
        routes.router().units().forEach((unit) -> counts.addAll(unit.service().reconcile()));
        return counts;
    }
}
