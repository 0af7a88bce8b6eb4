package io.pgqueue;

import java.util.Collection;
import java.util.Optional;

import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.SendResult;

/**
 * Publishing jobs. Every method joins the caller's Spring-managed transaction when there is one, so a
 * rollback leaves no job; without one each call commits on its own.
 */
public interface QueueOperations {

    /**
     * Sends one job to run as soon as possible.
     * @return the new job's id
     */
    long send(String queue, Object payload);

    /**
     * Sends one job with options. With a dedup key that is already pending or running in the queue, nothing
     * is inserted and the result says so.
     */
    SendResult send(String queue, Object payload, SendOptions options);

    /**
     * Sends all payloads in one statement. An element that is a {@link JobRequest} carries its own options.
     */
    BatchSendResult sendBatch(String queue, Collection<?> payloads);

    /**
     * Sends all payloads in one statement with common options; an element that is a {@link JobRequest}
     * carries its own options instead.
     */
    BatchSendResult sendBatch(String queue, Collection<?> payloads, SendOptions options);

    /**
     * What the job's listener returned, read as {@code type}: empty while the job has not completed, when the
     * listener returned nothing, or when history is off (outputs are kept in the history).
     * @throws io.pgqueue.model.NoSuchJobException when there is no such job (or it left the history)
     */
    <T> Optional<T> output(long jobId, Class<T> type);
}
