package io.pgqueue.model;

import org.jspecify.annotations.Nullable;

/**
 * What a send did.
 *
 * @param jobId the new job's id; for a duplicate, the id of the job already holding the dedup key when it
 * could be read (null if that job finished in the meantime)
 * @param duplicate whether nothing was inserted because the dedup key was taken
 */
public record SendResult(@Nullable Long jobId, boolean duplicate) {

    public static SendResult created(long jobId) {
        return new SendResult(jobId, false);
    }

    public static SendResult duplicateOf(@Nullable Long existingJobId) {
        return new SendResult(existingJobId, true);
    }

    /** Whether a new job was inserted. */
    public boolean created() {
        return !duplicate;
    }
}
