package io.pgqueue.admin;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.BulkCancelResult;

/**
 * Batches: look one up, list them, page through their members, cancel one.
 * One role of {@link QueueAdmin}, which is all of them; inject the role a class needs.
 */
public interface BatchesAdmin {

    /** A batch with its state, counts (read from its aggregate, whatever its size) and callbacks, if it exists. */
    Optional<BatchInfo> batch(long batchId);

    /** How many batches are in each state, for gauges. */
    Map<BatchState, Long> batchesByState();

    /** Batches by name and state, newest first, keyset-paged. */
    List<BatchInfo> batches(BatchQuery query);

    /** A page of a batch's live members in job id order, after the given job id (1 to 10,000). */
    List<BatchMemberInfo> batchMembers(long batchId, long afterJobId, int limit);

    /**
     * Cancels an open or running batch: no member can be added any more, its callbacks that have not fired never
     * will (but onComplete, once its running members finished, when it was opened with
     * {@code completeOnCancel(true)}), its waiting, scheduled and ready members finish as cancelled, and the
     * cancellation of its running LEASE members is requested; dead members stay dead. A batch that finished or does
     * not exist gives an all-zero result.
     */
    BulkCancelResult cancelBatch(long batchId);
}
