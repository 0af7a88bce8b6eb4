package io.pgqueue.internal.listener;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.internal.persistence.FailureUpdate;
import io.pgqueue.internal.persistence.PostgresText;
import io.pgqueue.listener.JobInterceptor;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.SnoozeException;
import io.pgqueue.listener.adapter.MethodJobHandler;
import io.pgqueue.listener.error.ExponentialBackoff;
import io.pgqueue.listener.error.FailedJob;
import io.pgqueue.listener.error.FailureDecision;
import io.pgqueue.listener.error.JobTimeoutException;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.listener.error.TransactionAbortedException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs a listener on claimed jobs and turns what happened into outcomes: the part both delivery modes share.
 * Never throws for a handler's failure: every job gets an outcome (succeeded with its output, snoozed,
 * cancelled, or failed with a retry-or-dead decision). A run past its timeout is interrupted and fails with a
 * {@link JobTimeoutException}, whatever the handler did after the interruption.
 */
final class JobExecutor {

    /** Longest {@code last_error} kept: the message and the top of the stack trace. */
    static final int MAX_ERROR_LENGTH = 4000;

    private static final Log logger = LogFactory.getLog(JobExecutor.class);

    private final MethodJobHandler handler;

    private final QueueErrorHandler errorHandler;

    private final ExponentialBackoff backoff;

    private final JsonMapper mapper;

    private final JobObserver observer;

    /** The listener's timeout, or null for none. */
    private final @Nullable Duration timeout;

    /** Whether outputs are kept (in the job history): if not, return values are not written at all. */
    private final boolean keepOutputs;

    private final JobContextImpl.WorkflowContexts workflows;

    private final HandlerPipeline pipeline;

    /** Whether the handler runs in pgqueue's transaction (TRANSACTIONAL delivery). */
    private final boolean transactional;

    /** Starts a run's durable calls on its first one (made once: a plain job's run allocates nothing for them). */
    private final JobContextImpl.@Nullable DurableStart durableStart;

    /** Durable execution's steps, waits and events; null where the listener has none (tests of the engine alone). */
    private final @Nullable DurableRuns durable;

    /** Whether the transaction a handler ran in was aborted when it returned; never for LEASE (none). */
    private final BooleanSupplier handlerTransactionAborted;

    JobExecutor(MethodJobHandler handler, QueueErrorHandler errorHandler, ExponentialBackoff backoff, JsonMapper mapper,
            JobObserver observer, @Nullable Duration timeout, ProcessObserver processObserver, String mode,
            boolean keepOutputs, JobContextImpl.WorkflowContexts workflows, BooleanSupplier handlerTransactionAborted,
            List<JobInterceptor> interceptors, @Nullable DurableRuns durable) {
        this.durable = durable;
        this.transactional = !"lease".equals(mode);
        this.durableStart = (durable != null) ? (started) -> durable.start(started, handler, transactional) : null;
        this.workflows = workflows;
        this.handlerTransactionAborted = handlerTransactionAborted;
        this.handler = handler;
        this.errorHandler = errorHandler;
        this.backoff = backoff;
        this.mapper = mapper;
        this.observer = GuardedObservers.of(observer);
        this.timeout = timeout;
        this.keepOutputs = keepOutputs;
        this.pipeline = new HandlerPipeline(GuardedObservers.of(processObserver), mode, this::outcomes, this::invoke,
                checkedForAbort(interceptors));
    }

    /**
     * The application's interceptors inside a check that the handler's transaction is not aborted once they
     * returned: an interceptor that swallows the failure of a handler that caught an SQL error must not make the
     * attempt a success (the handler step checks the same for a handler alone).
     */
    private List<JobInterceptor> checkedForAbort(List<JobInterceptor> interceptors) {
        if (interceptors.isEmpty()) {
            return interceptors;
        }
        JobInterceptor abortCheck = (run) -> {
            Object value = run.proceed();
            if (handlerTransactionAborted.getAsBoolean()) {
                throw new TransactionAbortedException(run.jobs().get(0).id());
            }
            return value;
        };
        List<JobInterceptor> checked = new java.util.ArrayList<>(List.of(abortCheck));
        checked.addAll(interceptors);
        return checked;
    }

    boolean isBatch() {
        return handler.isBatch();
    }

    /** What became of one job's run. */
    sealed interface Outcome permits Succeeded, Snoozed, Cancelled, Failure {

        ClaimedJob job();
    }

    /**
     * The handler returned.
     *
     * @param outputJson what it returned, as JSON, or null
     */
    record Succeeded(ClaimedJob job, @Nullable String outputJson) implements Outcome {
    }

    /** The handler put the job off; the attempt does not count. */
    record Snoozed(ClaimedJob job, Duration delay) implements Outcome {
    }

    /** The job's cancellation was requested while it ran (or before it started): it finishes as cancelled. */
    record Cancelled(ClaimedJob job) implements Outcome {
    }

    /**
     * Runs a single-job listener on the job of {@code run}, bounded by the job's timeout (else the listener's),
     * through the {@link HandlerPipeline}.
     */
    Outcome run(HandlerRun run, JobContextImpl.LeaseExtender leaseExtender) {
        ClaimedJob job = run.job();
        JobContextImpl context = new JobContextImpl(run, mapper, leaseExtender, workflows, durableStart);
        observer.started(context);
        return pipeline.run(new HandlerPipeline.Invocation(List.of(context), List.of(job), List.of(), run,
                timeoutOf(job), false, System.nanoTime())).get(0);
    }

    /** The handler step: reads a single job's payload (unless it was cancelled already) and invokes the handler. */
    private HandlerPipeline.Result invoke(HandlerPipeline.Invocation invocation) {
        try {
            if (invocation.batch()) {
                handler.invokeBatch(invocation.payloads());
                return returned(invocation, null);
            }
            if (invocation.run().cancelRequested()) {
                return new HandlerPipeline.Result(null, null);
            }
            ClaimedJob job = invocation.first().job();
            Object payload = handler.readPayload(job.id(), job.payloadJson(), job.payloadType());
            return returned(invocation, handler.invoke(payload, invocation.first()));
        }
        catch (Throwable ex) {
            // an Error too: it must become this job's failure, or the job runs again uncounted forever
            return new HandlerPipeline.Result(null, ex);
        }
    }

    /**
     * What a handler that returned did: its value, or the failure it hid when it caught an SQL error that aborted
     * its transaction. Checked before the next job of a claim runs, so that an innocent job behind it is not
     * blamed for the refused statements (and the job is not committed as done while its commit rolls back).
     */
    private HandlerPipeline.Result returned(HandlerPipeline.Invocation invocation, @Nullable Object value) {
        if (handlerTransactionAborted.getAsBoolean()) {
            return new HandlerPipeline.Result(null, new TransactionAbortedException(invocation.first().job().id()));
        }
        return new HandlerPipeline.Result(value, null);
    }

    /**
     * The outcome step: what became of each job of the run, the observer told. A single job: cancelled when
     * its cancellation was requested, else failed when it ran out of time, else snoozed, failed or succeeded as
     * the handler did. A batch: all succeeded, or all failed with the handler's error.
     */
    private List<Outcome> outcomes(HandlerPipeline.Invocation invocation, HandlerPipeline.Result result) {
        Duration elapsed = Duration.ofNanos(System.nanoTime() - invocation.startNanos());
        if (invocation.batch()) {
            List<Outcome> outcomes = new ArrayList<>(invocation.jobs().size());
            for (JobContextImpl job : invocation.jobs()) {
                if (result.error() == null) {
                    observer.succeeded(job, elapsed);
                    outcomes.add(new Succeeded(job.job(), null));
                }
                else {
                    outcomes.add(failure(job, result.error(), invocation.startNanos()));
                }
            }
            return outcomes;
        }
        JobContextImpl context = invocation.first();
        ClaimedJob job = context.job();
        Throwable error = result.error();
        if (invocation.run().cancelRequested()) {
            observer.cancelled(context, elapsed);
            return List.of(new Cancelled(job));
        }
        if (invocation.run().timedOut()) {
            return List.of(failure(context, Objects.requireNonNull(error), invocation.startNanos()));
        }
        Duration snooze = (error instanceof SnoozeException snoozed) ? snoozed.delay() : context.snoozedFor();
        if (snooze != null) {
            observer.snoozed(context, elapsed, snooze);
            return List.of(new Snoozed(job, snooze));
        }
        if (error != null) {
            return List.of(failure(context, error, invocation.startNanos()));
        }
        observer.succeeded(context, elapsed);
        String output = output(job, result.value());
        if (awaited(context)) {
            tellAwaiting(context, "completed", (output != null || result.value() == null) ? output
                    : outputOf(job, result.value()), null);
        }
        return List.of(new Succeeded(job, output));
    }

    /** Whether a job that spawned this one awaits it ({@code JobContext.spawn} put the header). */
    private boolean awaited(JobContextImpl context) {
        return durable != null && context.job().headersJson() != null
                && context.headers().containsKey(DurableRun.AWAITED_HEADER);
    }

    /**
     * Tells the job that spawned this one how it ended, by the event it awaits (the first emit wins: a later run of
     * this job changes nothing). Before the acknowledgement (LEASE), or in the handler's transaction
     * (TRANSACTIONAL; a dead job's rolls back with it, and the awaiting job finds it dead when it looks). Never
     * fails the run: the awaiting job also looks at this one's row.
     */
    private void tellAwaiting(JobContextImpl context, String state, @Nullable String outputJson, @Nullable String error) {
        if (!awaited(context)) {
            return;
        }
        try {
            tools.jackson.databind.node.ObjectNode ended = mapper.createObjectNode().put("state", state);
            if (outputJson != null) {
                ended.set("output", mapper.readTree(outputJson));
            }
            if (error != null) {
                ended.put("error", error);
            }
            java.util.Objects.requireNonNull(durable).repository()
                .emit(io.pgqueue.model.EventKeys.jobEnded(context.id()), ended.toString(),
                        AWAITED_RETENTION);
        }
        catch (RuntimeException ex) {
            logger.warn("Job " + context.id() + " of queue '" + context.queue() + "' ended " + state
                    + ", but the job awaiting it could not be told (it finds out when it looks): " + ex.getMessage());
        }
    }

    /** How long the end of an awaited job is kept for the job awaiting it. */
    private static final Duration AWAITED_RETENTION = Duration.ofDays(30);

    /** A return value as JSON for a job awaiting this one, or null when it cannot be written (logged). */
    private @Nullable String outputOf(ClaimedJob job, Object result) {
        try {
            return PostgresText.json(mapper.writeValueAsString(result));
        }
        catch (RuntimeException ex) {
            logger.warn("Job " + job.id() + " of queue '" + job.queue() + "' succeeded, but its listener's return value ("
                    + result.getClass().getName() + ") cannot be written as JSON; the job awaiting it gets null: "
                    + ex.getMessage());
            return null;
        }
    }

    /**
     * The handler's return value as the JSON the job's history or its workflow keeps, or null when neither
     * keeps one (then it is not even written). The work is done whatever its output: a value that cannot be written as JSON is
     * logged and left out, never a failure of the run.
     */
    private @Nullable String output(ClaimedJob job, @Nullable Object result) {
        if (result == null || !(keepOutputs || job.inWorkflow())) {
            return null;
        }
        try {
            return PostgresText.json(mapper.writeValueAsString(result));
        }
        catch (RuntimeException ex) {
            logger.warn("Job " + job.id() + " of queue '" + job.queue() + "' succeeded, but its listener's return value ("
                    + result.getClass().getName() + ") cannot be written as JSON; no output is recorded: " + ex.getMessage());
            return null;
        }
    }

    /** The timeout of a job: its own, else its listener's, else none. */
    private @Nullable Duration timeoutOf(ClaimedJob job) {
        return (job.timeoutMillis() != null) ? Duration.ofMillis(job.timeoutMillis()) : timeout;
    }

    /**
     * Runs a batch listener on all jobs whose payload can be read, bounded by the listener's timeout, through
     * the {@link HandlerPipeline}; jobs whose payload cannot be read fail on their own, and the rest fail
     * together if the listener throws.
     * @return the failures, empty on success
     */
    List<Failure> runBatch(List<ClaimedJob> jobs, HandlerRun run) {
        long start = System.nanoTime();
        List<Failure> failures = new ArrayList<>();
        List<JobContextImpl> readable = new ArrayList<>(jobs.size());
        List<@Nullable Object> payloads = new ArrayList<>(jobs.size());
        for (ClaimedJob job : jobs) {
            JobContextImpl context = new JobContextImpl(job, run, mapper, JobContextImpl.LeaseExtender.NONE, workflows);
            observer.started(context);
            try {
                payloads.add(handler.readPayload(job.id(), job.payloadJson(), job.payloadType()));
                readable.add(context);
            }
            catch (RuntimeException ex) {
                failures.add(failure(context, ex, start));
            }
        }
        if (readable.isEmpty()) {
            return failures;
        }
        for (Outcome outcome : pipeline.run(new HandlerPipeline.Invocation(readable, jobs, payloads, run, timeout,
                true, start))) {
            if (outcome instanceof Failure failure) {
                failures.add(failure);
            }
        }
        return failures;
    }

    /** The failure of a job whose handler succeeded but whose outcome could not be committed. */
    Failure failed(ClaimedJob job, Throwable error) {
        return failure(new JobContextImpl(new HandlerRun(job, false), mapper, JobContextImpl.LeaseExtender.NONE,
                workflows, null), error,
                System.nanoTime());
    }

    private Failure failure(JobContextImpl context, Throwable error, long start) {
        ClaimedJob job = context.job();
        FailureDecision decision = decide(job, error);
        if (decision.isDead()) {
            logger.warn("Job " + job.id() + " of queue '" + job.queue() + "' is dead after attempt " + job.attempt()
                    + ": " + decision.reason(), error);
        }
        else if (logger.isInfoEnabled()) {
            logger.info("Job " + job.id() + " of queue '" + job.queue() + "' failed attempt " + job.attempt() + " of "
                    + job.maxAttempts() + ", retrying in " + decision.retryDelay().toMillis() + " ms: " + error);
        }
        observer.failed(context, Duration.ofNanos(System.nanoTime() - start), error, decision);
        String text = (decision.isDead() ? decision.reason() + "\n" : "") + stackTrace(error);
        if (decision.isDead()) {
            tellAwaiting(context, "dead", null, DurableRun.firstLine(decision.reason()));
        }
        return new Failure(job, decision,
                new FailureUpdate(job.id(), job.attempt(), job.maxAttempts(), decision.retryDelay(), truncate(text),
                        job.cascades()),
                error);
    }

    private FailureDecision decide(ClaimedJob job, Throwable error) {
        try {
            return errorHandler.onFailure(new FailedJob(job.id(), job.queue(), job.attempt(), job.maxAttempts()),
                    error, backoff);
        }
        catch (RuntimeException ex) {
            // a broken error handler must not lose the job: retry it as the default would
            return (job.attempt() >= job.maxAttempts()) ? FailureDecision.dead("Error handler failed: " + ex)
                    : FailureDecision.retryAfter(backoff.delayAfter(job.attempt()));
        }
    }

    private static String stackTrace(Throwable error) {
        StringWriter writer = new StringWriter();
        error.printStackTrace(new PrintWriter(writer));
        return writer.toString();
    }

    /** Bounded, and without NUL characters, which a PostgreSQL text value cannot hold. */
    private static String truncate(String text) {
        return PostgresText.text((text.length() <= MAX_ERROR_LENGTH) ? text : text.substring(0, MAX_ERROR_LENGTH));
    }

    /**
     * A failed attempt and what to do about it.
     *
     * @param job the job
     * @param decision retry or dead
     * @param update the row update that records it
     */
    record Failure(ClaimedJob job, FailureDecision decision, FailureUpdate update, Throwable error) implements Outcome {

        /** Whether the handler stopped because its thread was interrupted (a container stopping). */
        boolean interrupted() {
            return error instanceof InterruptedException || error.getCause() instanceof InterruptedException;
        }

        /**
         * Whether the JVM itself failed under the handler (out of memory, an internal error): the attempt still
         * counts, but nothing the handler did in the transaction may commit, and the worker thread that saw it
         * is replaced. A {@link StackOverflowError} is not: the stack it overflowed is unwound by now, and it is
         * the handler's failure (a too deeply nested payload) like any exception.
         */
        boolean fatal() {
            return error instanceof VirtualMachineError && !(error instanceof StackOverflowError);
        }
    }
}
