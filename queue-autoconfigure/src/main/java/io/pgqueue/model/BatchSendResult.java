package io.pgqueue.model;

import java.util.List;

/**
 * What a batch send did.
 *
 * @param jobIds ids of the jobs inserted
 * @param requested how many jobs were in the batch
 */
public record BatchSendResult(List<Long> jobIds, int requested) {

    public BatchSendResult {
        jobIds = List.copyOf(jobIds);
    }

    /** How many jobs were inserted. */
    public int inserted() {
        return jobIds.size();
    }

    /** How many jobs were skipped because their dedup key was taken. */
    public int duplicates() {
        return requested - jobIds.size();
    }
}
