package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.pgqueue.SendOptions;

import io.pgqueue.workflow.WorkflowContext;

import org.jspecify.annotations.Nullable;
import org.springframework.core.ParameterizedTypeReference;

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

    // ---- durable execution (docs/durable-execution.md) --------------------------------------------------------

    /**
     * Runs a step once for this job: its first successful run stores the result with the job, and every later
     * run of the job (a retry, a rescue after a crash, a resume after a sleep or a wait) returns the stored result
     * without running the body. A name used several times in one run is told apart by occurrence (the first
     * {@code "charge"}, the second...), so the steps of a run must be reached in the same order each time. A body
     * that throws stores nothing and fails the attempt as usual. The checkpoint commits on its own right after the
     * body returned, also in TRANSACTIONAL mode, where it survives the handler's rollback: an external call is not
     * repeated. Single-job listeners only.
     *
     * @param type the class the result is read back as on later runs
     */
    default <T> @Nullable T step(String name, Class<T> type, Callable<? extends @Nullable T> body) {
        throw durableUnsupported();
    }

    /** As {@link #step(String, Class, Callable)}, for a generic result ({@code List<Item>}). */
    default <T> @Nullable T step(String name, ParameterizedTypeReference<T> type, Callable<? extends @Nullable T> body) {
        throw durableUnsupported();
    }

    /**
     * As {@link #step(String, Class, Callable)}, the result read back as the class it was written from, when that
     * class is trusted as an open payload type would be (the listener's package, JDK value types,
     * {@code pgqueue.listener.trusted-packages}); otherwise a later run fails naming the typed variant to use.
     */
    default <T> @Nullable T step(String name, Callable<? extends @Nullable T> body) {
        throw durableUnsupported();
    }

    /**
     * A step whose database writes happen exactly once: the body runs in one transaction on pgqueue's DataSource
     * together with its checkpoint (LEASE: a transaction of its own, or the caller's when the handler opened one;
     * TRANSACTIONAL: the handler's transaction, so body and checkpoint commit or roll back with the job).
     */
    default <T> @Nullable T transactionalStep(String name, Class<T> type, Callable<? extends @Nullable T> body) {
        throw durableUnsupported();
    }

    /**
     * Ends this run and runs the job again from the top after {@code duration}, holding no worker, thread or
     * connection meanwhile (the job is a scheduled row) and charging no attempt. The sleep is itself a step: the
     * resumed run passes it. Throws {@link JobSuspendedException}, which the handler must let propagate.
     */
    default void sleep(Duration duration) {
        throw durableUnsupported();
    }

    /** As {@link #sleep(Duration)}, until a time; returns at once when that time has passed. */
    default void sleepUntil(Instant until) {
        throw durableUnsupported();
    }

    /**
     * Parks the job until an event with this key is emitted ({@code QueueEvents.emit}, {@code pgqueue.emit()} in
     * SQL, or the endpoint) or the timeout passes, whichever comes first, and returns the event's payload read as
     * the type. The first emit of a key wins; one emitted before this await is returned at once. Empty when the
     * timeout passed (or an operator woke the job), and for an event emitted without a payload.
     *
     * @param key 1 to 512 characters, not starting with {@code pgqueue:}
     */
    default <T> Optional<T> awaitEvent(String key, Duration timeout, Class<T> type) {
        throw durableUnsupported();
    }

    /** As {@link #awaitEvent(String, Duration, Class)}, saying only whether the event came before the timeout. */
    default boolean awaitEvent(String key, Duration timeout) {
        throw durableUnsupported();
    }

    /**
     * Sends a job once for this job (a step: a resumed run gets the same id back), which {@link #awaitJob} can
     * wait for. Sent and recorded in one transaction of its own, also in TRANSACTIONAL mode.
     */
    default long spawn(String queue, Object payload) {
        return spawn(queue, payload, SendOptions.defaults());
    }

    /** As {@link #spawn(String, Object)}, with send options. */
    default long spawn(String queue, Object payload, SendOptions options) {
        throw durableUnsupported();
    }

    /**
     * Parks the job until the job {@code jobId} (sent by {@link #spawn}) finishes, and returns its listener's
     * return value read as the type (null when it returned none).
     *
     * @throws ChildJobFailedException when that job went dead or ended without a result (cancelled, purged)
     */
    default <T> @Nullable T awaitJob(long jobId, Class<T> type) {
        throw durableUnsupported();
    }

    private UnsupportedOperationException durableUnsupported() {
        return new UnsupportedOperationException("This JobContext (" + getClass().getName()
                + ") does not support durable execution");
    }

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
