package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import io.pgqueue.workflow.WorkflowContext;

import org.jspecify.annotations.Nullable;

/**
 * What a listener can know about the job it runs; declare it as a parameter of a {@code @QueueListener}
 * method.
 */
public interface JobContext {

    long id();

    String queue();

    /** This attempt's number, starting at 1. */
    int attempt();

    /** Attempts allowed before the job goes dead. */
    int maxAttempts();

    Map<String, String> headers();

    /** When the job was sent. */
    Instant enqueuedAt();

    /** When the job became runnable: its run-at, after any delay or backoff. */
    Instant dueAt();

    /** When this attempt was claimed (database clock). */
    Instant claimedAt();

    /** The Java type the payload was written from, as recorded at send. */
    @Nullable String payloadType();

    /**
     * Extends this job's lease to at least {@code duration} from now (LEASE mode; the node's heartbeat
     * already renews leases while the handler runs, so this is for handlers that want a longer margin).
     * No effect in TRANSACTIONAL mode, where the open transaction holds the job.
     * @return whether the lease was extended (false if this node no longer owns the job)
     */
    boolean extendLease(Duration duration);

    /**
     * Whether this job's cancellation was requested ({@code QueueAdmin.cancel}) while it runs. The handler's
     * thread is also interrupted; a handler that checks this (or {@link #checkCancelled()}) in its loop stops
     * cleanly. Whatever it then returns or throws, the job finishes as cancelled.
     */
    boolean isCancellationRequested();

    /** Throws {@link JobCancelledException} when this job's cancellation was requested. */
    void checkCancelled();

    /**
     * Puts this job off: once the handler returns (or throws), the job runs again after {@code delay}, and
     * this attempt does not count. Throwing {@link SnoozeException} does the same. In TRANSACTIONAL mode the
     * handler's transaction rolls back.
     */
    void snooze(Duration delay);

    /**
     * Reports how far the handler got (0 to 100) and what it is doing. Throttled: the latest report is written
     * at the node's next heartbeat, where {@code QueueAdmin.job(id)} shows it while the job runs (LEASE mode;
     * a TRANSACTIONAL job's row is held by its transaction, and its progress is not recorded).
     */
    void progress(int percent, @Nullable String message);

    /** The batch this job is a member of, or null when it is none's. */
    default @Nullable Long batchId() {
        return null;
    }

    /** The workflow this job is a node of, or null for a plain job. */
    default @Nullable WorkflowContext workflow() {
        return null;
    }

    /**
     * The output of one of this node's parents, read as the type (see {@link WorkflowContext#parentOutput}).
     *
     * @throws IllegalStateException when this job is not a workflow node
     */
    default <T> Optional<T> parentOutput(String parent, Class<T> type) {
        return node().parentOutput(parent, type);
    }

    /** The outputs of this node's parents that completed with one, by name (a fan-in reads them all). */
    default <T> Map<String, T> parentOutputs(Class<T> type) {
        return node().parentOutputs(type);
    }

    private WorkflowContext node() {
        WorkflowContext workflow = workflow();
        if (workflow == null) {
            throw new IllegalStateException("Job " + id() + " of queue '" + queue() + "' is not a workflow node");
        }
        return workflow;
    }
}
