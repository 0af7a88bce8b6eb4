package io.pgqueue.admin;

import java.util.List;
import java.util.Optional;

import io.pgqueue.model.JobStep;
import io.pgqueue.model.JobWait;
import org.jspecify.annotations.Nullable;

/**
 * Operating durable execution: a job's completed steps, what a parked job waits for, waking it, and emitting an
 * event as an operator. One role of {@link QueueAdmin}, which is all of them; inject the role a class needs.
 */
public interface DurableAdmin {

    /**
     * The steps a job's runs completed, in the order they were recorded.
     *
     * @param content whether to show their results (hidden by default, as outputs are)
     */
    List<JobStep> steps(long jobId, boolean content);

    /** What a parked job waits for; empty when it waits for nothing. */
    Optional<JobWait> waitOf(long jobId);

    /**
     * Ends a parked job's wait now: a sleep ends, an await of an event or a job ends as at its timeout (the await
     * returns empty). Returns whether the job was parked.
     */
    boolean wake(long jobId);

    /**
     * Emits an event, as {@code QueueEvents.emit} does (the first emit of a key wins), with the default retention.
     *
     * @param payloadJson the payload as JSON text, or null
     * @return whether this emit was the key's first
     * @throws IllegalArgumentException for an invalid key or payload
     */
    boolean emit(String key, @Nullable String payloadJson);
}
