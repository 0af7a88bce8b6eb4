package io.pgqueue.internal.persistence;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Inserting jobs: what publishing needs of the job table. One of the ports of the job table ({@link JobTable}), each implemented by a class of its own.
 */
public interface JobPublishPort {

    /**
     * {@link Transition#ENQUEUE}: inserts the jobs in one statement and returns the ids of the rows inserted;
     * jobs whose dedup key is already live in the queue are skipped. With {@code notify}, the same statement
     * sends a NOTIFY for the queue (delivered at commit) when it inserted anything.
     */
    List<Long> enqueue(String queue, List<NewJob> jobs, boolean notify);

    /**
     * As {@link #enqueue}, the jobs members of a batch, counted in its shards and counts: the caller holds the
     * batch locked open ({@link BatchRepository#lockForAdding}) in the same transaction.
     */
    List<Long> enqueueToBatch(String queue, long batchId, List<NewJob> jobs, boolean notify);

    /**
     * {@link Transition#ENQUEUE} of a debounced job ({@link NewJob#debounceKey()}), or, while a job of its key
     * is still waiting for its quiet window, that job takes the new payload and options and waits again.
     */
    DebouncedSend enqueueDebounced(String queue, NewJob job);

    /**
     * What a debounced send did.
     *
     * @param jobId the job that will run
     * @param inserted whether it was inserted (else an earlier send's job was updated)
     */
    record DebouncedSend(long jobId, boolean inserted) {
    }

    /** The id of the live (not dead) job holding this dedup key, if any. */
    @Nullable Long findLiveByDedupKey(String queue, String dedupKey);
}
