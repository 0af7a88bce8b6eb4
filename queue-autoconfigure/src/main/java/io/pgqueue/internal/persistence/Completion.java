package io.pgqueue.internal.persistence;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A job whose handler succeeded, as the statement that finishes it needs it: never the claimed job itself, whose
 * payload would otherwise stay in memory until the statement runs.
 *
 * @param id the job
 * @param attempt the attempt that succeeded
 * @param outputJson what the handler returned, as JSON, or null
 * @param workflowId the workflow the job is a node of, or null
 * @param batchId the batch the job is a member of, or null
 * @param cascades the cascades its claim decided
 */
public record Completion(long id, int attempt, @Nullable String outputJson, @Nullable Long workflowId,
        @Nullable Long batchId, Cascades cascades) {

    /** The completion of a claimed job. */
    public static Completion of(ClaimedJob job, @Nullable String outputJson) {
        return new Completion(job.id(), job.attempt(), outputJson, job.workflowId(), job.batchId(), job.cascades());
    }

    static long[] ids(List<Completion> jobs) {
        return jobs.stream().mapToLong(Completion::id).toArray();
    }

    static @Nullable String[] outputs(List<Completion> jobs) {
        return jobs.stream().map(Completion::outputJson).toArray(String[]::new);
    }
}
