package io.pgqueue.internal.routing;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.pgqueue.admin.BatchesAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.BulkCancelResult;

/**
 * Batches across databases: an id goes to the database of its block; listings merge, newest first.
 */
final class RoutingBatchesAdmin implements BatchesAdmin {

    private final AdminRoutes routes;

    RoutingBatchesAdmin(AdminRoutes routes) {
        this.routes = routes;
    }

    @Override
    public Optional<BatchInfo> batch(long batchId) {
        return routes.id(batchId).batch(batchId);
    }

    @Override
    public Map<BatchState, Long> batchesByState() {
        return routes.sum(QueueAdmin::batchesByState, new EnumMap<>(BatchState.class));
    }

    @Override
    public List<BatchInfo> batches(BatchQuery query) {
        return AdminRoutes.newest(routes.all((admin) -> admin.batches(query)), BatchInfo::id, query.limit());
    }

    @Override
    public List<BatchMemberInfo> batchMembers(long batchId, long afterJobId, int limit) {
        return routes.id(batchId).batchMembers(batchId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelBatch(long batchId) {
        return routes.id(batchId).cancelBatch(batchId);
    }
}
