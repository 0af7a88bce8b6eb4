package io.pgqueue.model;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * A job as an operator sees it: live (scheduled, ready, running, dead) or finished (completed, cancelled; kept
 * when history is on).
 *
 * @param id job id
 * @param queue queue name
 * @param state where the job is in its life
 * @param payload payload as JSON text
 * @param payloadType Java type recorded at send, or null
 * @param headers headers given at send
 * @param attempts attempts made (counting a running one)
 * @param maxAttempts attempts allowed, or null until the first claim resolves the listener's setting
 * @param priority higher runs first
 * @param runAt when it may run (its delay, backoff or snooze), or when it last became runnable
 * @param enqueuedAt when it was sent
 * @param attemptedAt when its current or last attempt was claimed, or null
 * @param finishedAt when it finished (a dead job: when it died), or null while live
 * @param lastError the error of its last failed attempt, or null
 * @param output what its handler returned, as JSON text, or null
 * @param progress what its handler reported while running, or null
 * @param cancelRequested whether a cancellation of it while running was requested
 * @param groupKey its ordering group, or null
 * @param dedupKey its dedup key, or null
 * @param timeoutMillis its own timeout, or null for its listener's
 * @param lockedBy the node running it (LEASE), or null
 * @param leaseUntil when that node's lease runs out, or null
 * @param workflowId the workflow the job is a node of, or null
 * @param batchId the batch the job is a member of, or null
 * @param fairnessKey the fairness key a fair queue charges the job to, or null (finished jobs do not keep it)
 */
public record JobInfo(long id, String queue, JobState state, String payload, @Nullable String payloadType,
        Map<String, String> headers, int attempts, @Nullable Integer maxAttempts, int priority, Instant runAt,
        Instant enqueuedAt, @Nullable Instant attemptedAt, @Nullable Instant finishedAt, @Nullable String lastError,
        @Nullable String output, @Nullable Progress progress, boolean cancelRequested, @Nullable String groupKey,
        @Nullable String dedupKey, @Nullable Long timeoutMillis, @Nullable UUID lockedBy, @Nullable Instant leaseUntil,
        @Nullable Long workflowId, @Nullable Long batchId, @Nullable String fairnessKey) {

    public JobInfo {
        headers = Map.copyOf(headers);
    }

    /** A job without a fairness key (the components before fairness existed). */
    public JobInfo(long id, String queue, JobState state, String payload, @Nullable String payloadType,
            Map<String, String> headers, int attempts, @Nullable Integer maxAttempts, int priority, Instant runAt,
            Instant enqueuedAt, @Nullable Instant attemptedAt, @Nullable Instant finishedAt, @Nullable String lastError,
            @Nullable String output, @Nullable Progress progress, boolean cancelRequested, @Nullable String groupKey,
            @Nullable String dedupKey, @Nullable Long timeoutMillis, @Nullable UUID lockedBy,
            @Nullable Instant leaseUntil, @Nullable Long workflowId, @Nullable Long batchId) {
        this(id, queue, state, payload, payloadType, headers, attempts, maxAttempts, priority, runAt, enqueuedAt,
                attemptedAt, finishedAt, lastError, output, progress, cancelRequested, groupKey, dedupKey, timeoutMillis,
                lockedBy, leaseUntil, workflowId, batchId, null);
    }

    /** A job that is no batch's member (the components before batches existed). */
    public JobInfo(long id, String queue, JobState state, String payload, @Nullable String payloadType,
            Map<String, String> headers, int attempts, @Nullable Integer maxAttempts, int priority, Instant runAt,
            Instant enqueuedAt, @Nullable Instant attemptedAt, @Nullable Instant finishedAt, @Nullable String lastError,
            @Nullable String output, @Nullable Progress progress, boolean cancelRequested, @Nullable String groupKey,
            @Nullable String dedupKey, @Nullable Long timeoutMillis, @Nullable UUID lockedBy,
            @Nullable Instant leaseUntil, @Nullable Long workflowId) {
        this(id, queue, state, payload, payloadType, headers, attempts, maxAttempts, priority, runAt, enqueuedAt,
                attemptedAt, finishedAt, lastError, output, progress, cancelRequested, groupKey, dedupKey, timeoutMillis,
                lockedBy, leaseUntil, workflowId, null, null);
    }

    /** A job that is no workflow's node (the components before workflows existed). */
    public JobInfo(long id, String queue, JobState state, String payload, @Nullable String payloadType,
            Map<String, String> headers, int attempts, @Nullable Integer maxAttempts, int priority, Instant runAt,
            Instant enqueuedAt, @Nullable Instant attemptedAt, @Nullable Instant finishedAt, @Nullable String lastError,
            @Nullable String output, @Nullable Progress progress, boolean cancelRequested, @Nullable String groupKey,
            @Nullable String dedupKey, @Nullable Long timeoutMillis, @Nullable UUID lockedBy,
            @Nullable Instant leaseUntil) {
        this(id, queue, state, payload, payloadType, headers, attempts, maxAttempts, priority, runAt, enqueuedAt,
                attemptedAt, finishedAt, lastError, output, progress, cancelRequested, groupKey, dedupKey, timeoutMillis,
                lockedBy, leaseUntil, null, null);
    }

    /**
     * Progress reported by a running handler.
     *
     * @param percent 0 to 100
     * @param message what it is doing, or null
     */
    public record Progress(int percent, @Nullable String message) {
    }
}
