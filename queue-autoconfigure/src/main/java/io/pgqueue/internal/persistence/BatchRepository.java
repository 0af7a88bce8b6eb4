package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.BatchQuery;
import org.jspecify.annotations.Nullable;

/**
 * The batch tables: {@code batch}, its shards {@code batch_slot}, {@code batch_callback} and the per-batch counts.
 * Members are jobs ({@link JobPublishPort#enqueueToBatch}); what their transitions decide happens in their own
 * statements ({@link BatchCascade}).
 */
public interface BatchRepository {

    /**
     * A callback to store: its event ({@code success}, {@code complete}, {@code first_death},
     * {@code cannot_succeed}) and its job's queue and options.
     */
    record NewCallback(String event, String queue, short priority, long delayMillis, @Nullable Integer maxAttempts,
            @Nullable String groupKey, @Nullable Long timeoutMillis, @Nullable String headersJson) {
    }

    /** Inserts an open batch with its shards and callbacks; returns its id. */
    long open(String name, Map<String, String> properties, boolean completeOnCancel, List<NewCallback> callbacks);

    /**
     * Locks the batch against its seal and cancellation until the end of the transaction ({@code FOR KEY SHARE}:
     * adders do not wait for one another, nor acknowledgements for them); returns its state, or null when it does
     * not exist.
     */
    @Nullable String lockForAdding(long batchId);

    /**
     * Seals an open batch (waiting for transactions adding to it): what its members did so far fires its
     * callbacks now. Returns the batch's state afterwards, or null when it does not exist.
     */
    @Nullable String seal(long batchId);

    /**
     * Marks an open or running batch cancelled: its pending callbacks are skipped but onComplete when the batch
     * asked for it, and no member can be added. Returns the state it had, or null when it was neither (or does not
     * exist). The caller seals a batch that was open ({@link #sealCancelled}) and cancels the members, each in a
     * transaction of its own (none holds the batch row while waiting for members or shards).
     */
    @Nullable String markCancelled(long batchId);

    /** Seals a cancelled batch that was open, as {@link #seal}. */
    void sealCancelled(long batchId);

    /** Runs the work in a transaction on pgqueue's DataSource: the caller's, when it has one there. */
    <T> T inTransaction(Supplier<T> work);

    /** The batch, its counts read from the aggregate, or null. */
    @Nullable BatchInfo batch(long id);

    /** Batches by name and state, newest first, keyset-paged. */
    List<BatchInfo> batches(BatchQuery query);

    /** A page of the batch's live members in job id order, after the given job id. */
    List<BatchMemberInfo> members(long batchId, long afterJobId, int limit);

    /** Batches per state (for gauges). */
    Map<String, Long> countsByState();

    /** Folds the per-batch deltas; returns rows folded. */
    long squeeze();

    /**
     * Deletes batches finished before the retention whose members and callbacks' jobs all left the job table,
     * a bounded batch; returns how many.
     */
    int expire(Duration retention, int limit);
}
