package io.pgqueue.internal.routing;

import java.util.List;
import java.util.Optional;

import io.pgqueue.admin.DurableAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.model.EventKeys;
import io.pgqueue.model.JobStep;
import io.pgqueue.model.JobWait;
import org.jspecify.annotations.Nullable;

/**
 * Durable execution across databases: a job's steps and wait are in the database of its id's block; an event is
 * emitted in every database (a job awaits it in its own), and is the key's first if it is so in any.
 */
final class RoutingDurableAdmin implements DurableAdmin {

    private final AdminRoutes routes;

    RoutingDurableAdmin(AdminRoutes routes) {
        this.routes = routes;
    }

    @Override
    public List<JobStep> steps(long jobId, boolean content) {
        return routes.id(jobId).steps(jobId, content);
    }

    @Override
    public Optional<JobWait> waitOf(long jobId) {
        return routes.id(jobId).waitOf(jobId);
    }

    @Override
    public boolean wake(long jobId) {
        return routes.id(jobId).wake(jobId);
    }

    @Override
    public boolean emit(String key, @Nullable String payloadJson) {
        // refused here, not by each database: a listing leaves out a database that fails
        EventKeys.check(key);
        return !routes.all((QueueAdmin admin) -> admin.emit(key, payloadJson) ? List.of(true) : List.<Boolean>of())
            .isEmpty();
    }
}
