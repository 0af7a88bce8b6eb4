package io.pgqueue.internal.routing;

import java.util.Collection;
import java.util.Optional;

import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.SendResult;

/**
 * The application's {@link QueueTemplate} when queues live in several databases: each call goes to its
 * queue's database, and joins the caller's transaction only when that transaction runs on the same database.
 */
public final class RoutingQueueTemplate implements QueueTemplate {

    private final DatabaseRouter<QueueTemplate> router;

    public RoutingQueueTemplate(DatabaseRouter<QueueTemplate> router) {
        this.router = router;
    }

    @Override
    public long send(String queue, Object payload) {
        return router.forSend(queue).service().send(queue, payload);
    }

    @Override
    public SendResult send(String queue, Object payload, SendOptions options) {
        return router.forSend(queue).service().send(queue, payload, options);
    }

    @Override
    public BatchSendResult sendBatch(String queue, Collection<?> payloads) {
        return router.forSend(queue).service().sendBatch(queue, payloads);
    }

    @Override
    public BatchSendResult sendBatch(String queue, Collection<?> payloads, SendOptions options) {
        return router.forSend(queue).service().sendBatch(queue, payloads, options);
    }

    @Override
    public <T> Optional<T> output(long jobId, Class<T> type) {
        return router.serviceForId(jobId).output(jobId, type);
    }
}
