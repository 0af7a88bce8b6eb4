package io.pgqueue.batch;

import java.util.Collection;

import io.pgqueue.SendOptions;
import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.SendResult;

/**
 * Opens batches and adds their members. Every method joins the caller's transaction on pgqueue's DataSource
 * (else runs in its own): a batch opened, filled and sealed in your transaction exists only if it commits.
 * Members are ordinary jobs (priorities, delays, dedup keys, groups, timeouts, either delivery mode); a member
 * turned away by its dedup key is not added. Look batches up, page them and cancel them with
 * {@link io.pgqueue.admin.QueueAdmin}.
 */
public interface BatchOperations {

    /**
     * Opens a batch; returns its id. Fails with {@link InvalidBatchException} when a callback names a queue
     * nothing knows (no listener of this application, no {@code pgqueue.queues} entry, no job ever sent to it).
     */
    long open(Batch batch);

    /**
     * Adds a member to an open batch. Fails with {@link InvalidBatchException}, storing nothing, when the batch is
     * sealed, cancelled or does not exist. Adding holds the batch's counts for the rest of your transaction
     * (acknowledgements of its other members wait for it): add in short transactions.
     */
    default SendResult add(long batchId, String queue, Object payload) {
        return add(batchId, queue, payload, SendOptions.defaults());
    }

    SendResult add(long batchId, String queue, Object payload, SendOptions options);

    /** Adds members, in statements of pgqueue.template.batch-chunk-size rows, as {@link #add}. */
    default BatchSendResult addAll(long batchId, String queue, Collection<?> payloads) {
        return addAll(batchId, queue, payloads, SendOptions.defaults());
    }

    BatchSendResult addAll(long batchId, String queue, Collection<?> payloads, SendOptions options);

    /**
     * Seals the batch: no member can be added any more, and its callbacks may fire (at once, for what its members
     * did so far). Waits for transactions adding to it. Sealing a sealed or cancelled batch does nothing; fails
     * with {@link InvalidBatchException} when it does not exist.
     */
    void seal(long batchId);
}
