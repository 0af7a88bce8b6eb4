package io.pgqueue.observation;

import java.util.List;
import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@link PgQueueObservation#PROCESS}: its carrier is the job's headers, from which a tracing
 * handler reads the trace context the send wrote, so that processing continues the sender's trace. A retry
 * (attempt 2 or later) starts a trace of its own, linked to the sending span, and a batch listener's run one
 * linked to each of its jobs' sending spans ({@link LinkingReceiverTracingHandler}).
 */
public class ProcessContext extends ReceiverContext<Map<String, String>> {

    private final String queue;

    private final String mode;

    private final long jobId;

    private final int attempt;

    private final List<Map<String, String>> batch;

    private final @Nullable Long workflowId;

    private final @Nullable Long batchId;

    private String outcome = "success";

    private @Nullable String database;

    public ProcessContext(String queue, String mode, long jobId, int attempt, Map<String, String> headers) {
        this(queue, mode, jobId, attempt, headers, List.of());
    }

    /**
     * @param batch the headers of each job of a batch listener's run (linked from its span); empty for one job
     */
    public ProcessContext(String queue, String mode, long jobId, int attempt, Map<String, String> headers,
            List<Map<String, String>> batch) {
        this(queue, mode, jobId, attempt, headers, batch, null);
    }

    public ProcessContext(String queue, String mode, long jobId, int attempt, Map<String, String> headers,
            List<Map<String, String>> batch, @Nullable Long workflowId) {
        this(queue, mode, jobId, attempt, headers, batch, workflowId, null);
    }

    /**
     * @param batch the headers of each job of a batch listener's run (linked from its span); empty for one job
     * @param workflowId the workflow the job is a node of, or null
     * @param batchId the batch ({@code BatchOperations}) the job is a member of, or null
     */
    public ProcessContext(String queue, String mode, long jobId, int attempt, Map<String, String> headers,
            List<Map<String, String>> batch, @Nullable Long workflowId, @Nullable Long batchId) {
        super((carrier, key) -> (carrier != null) ? carrier.get(key) : null, Kind.CONSUMER);
        this.queue = queue;
        this.mode = mode;
        this.jobId = jobId;
        this.attempt = attempt;
        setCarrier(headers);
        setRemoteServiceName("pgqueue");
        this.batch = List.copyOf(batch);
        this.workflowId = workflowId;
        this.batchId = batchId;
    }

    /** The database the queue lives in, when the application has several ({@code pgqueue.databases}); else null. */
    public @Nullable String database() {
        return database;
    }

    public void setDatabase(@Nullable String database) {
        this.database = database;
    }

    /** The batch ({@code BatchOperations}) the job is a member of, or null. */
    public @Nullable Long batchId() {
        return batchId;
    }

    /** The workflow the job is a node of, or null. */
    public @Nullable Long workflowId() {
        return workflowId;
    }

    /** The headers of each job of a batch listener's run; empty for one job. */
    public List<Map<String, String>> batch() {
        return batch;
    }

    public String queue() {
        return queue;
    }

    /** {@code lease} or {@code transactional}. */
    public String mode() {
        return mode;
    }

    public long jobId() {
        return jobId;
    }

    public int attempt() {
        return attempt;
    }

    /** {@code success}, {@code failure}, {@code snoozed} or {@code cancelled}. */
    public String outcome() {
        return outcome;
    }

    public void setOutcome(String outcome) {
        this.outcome = outcome;
    }

    /** The trace context header the job was sent with, if any. */
    public @Nullable String traceparent() {
        return traceparent(getCarrier());
    }

    /** The W3C trace context header among a job's headers, if any. */
    static @Nullable String traceparent(@Nullable Map<String, String> headers) {
        return (headers != null) ? headers.get("traceparent") : null;
    }
}
