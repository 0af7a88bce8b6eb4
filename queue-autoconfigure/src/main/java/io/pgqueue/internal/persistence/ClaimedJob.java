package io.pgqueue.internal.persistence;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A job row handed to a listener.
 *
 * @param id job id
 * @param queue queue name
 * @param payloadJson payload as JSON text
 * @param payloadType Java type recorded at send, or null
 * @param headersJson headers as a JSON object, or null
 * @param attempt this attempt's number, starting at 1
 * @param maxAttempts attempts allowed before the job goes dead
 * @param enqueuedAt when the job was sent
 * @param dueAt when the job became runnable (its run-at)
 * @param claimedAt when this attempt was claimed (database clock)
 * @param timeoutMillis the job's own timeout, or null for the listener's
 * @param workflowId the workflow the job is a node of, or null
 * @param batchId the batch the job is a member of, or null
 * @param fairnessKey the fairness key the job is charged to, or null
 * @param cascades what the statements that finish the job must carry beside its row (a workflow's node, a
 * batch's member), decided here, at claim, from the row
 */
public record ClaimedJob(long id, String queue, String payloadJson, @Nullable String payloadType,
        @Nullable String headersJson, int attempt, int maxAttempts, Instant enqueuedAt, Instant dueAt, Instant claimedAt,
        @Nullable Long timeoutMillis, @Nullable Long workflowId, @Nullable Long batchId,
        @Nullable String fairnessKey, Cascades cascades) {

    /** Whether the job is a workflow's node. */
    public boolean inWorkflow() {
        return workflowId != null;
    }
}
