package io.pgqueue.internal.routing;

import java.util.Collection;

import io.pgqueue.SendOptions;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.SendResult;

/**
 * The application's {@link BatchOperations} when queues live in several databases: a batch is opened in the
 * database of its callbacks' queues (the default database when it has none), and its members must live
 * there too (each database's own operations refuse a callback or a member elsewhere).
 */
public final class RoutingBatches implements BatchOperations {

    private final DatabaseRouter<BatchOperations> router;

    public RoutingBatches(DatabaseRouter<BatchOperations> router) {
        this.router = router;
    }

    @Override
    public long open(Batch batch) {
        DatabaseUnit<BatchOperations> unit = batch.callbacks().values().stream()
            .findFirst()
            .map((callback) -> router.forSend(callback.queue()))
            .orElse(router.defaultUnit());
        return unit.service().open(batch);
    }

    @Override
    public SendResult add(long batchId, String queue, Object payload, SendOptions options) {
        router.forSend(queue);
        return router.serviceForId(batchId).add(batchId, queue, payload, options);
    }

    @Override
    public BatchSendResult addAll(long batchId, String queue, Collection<?> payloads, SendOptions options) {
        router.forSend(queue);
        return router.serviceForId(batchId).addAll(batchId, queue, payloads, options);
    }

    @Override
    public void seal(long batchId) {
        router.serviceForId(batchId).seal(batchId);
    }
}
