package io.pgqueue.internal.listener;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.adapter.MethodJobHandler;
import io.pgqueue.listener.error.ExponentialBackoff;
import io.pgqueue.listener.error.FailedJob;
import io.pgqueue.listener.error.FailureDecision;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.internal.lifecycle.ClaimedJob;
import io.pgqueue.internal.lifecycle.FailureUpdate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs a listener on claimed jobs and turns what happened into outcomes: the part both delivery modes share.
 * Never throws for a handler's failure: every job gets a success or a failure decision.
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

    JobExecutor(MethodJobHandler handler, QueueErrorHandler errorHandler, ExponentialBackoff backoff, JsonMapper mapper,
            JobObserver observer) {
        this.handler = handler;
        this.errorHandler = errorHandler;
        this.backoff = backoff;
        this.mapper = mapper;
        this.observer = observer;
    }

    boolean isBatch() {
        return handler.isBatch();
    }

    /**
     * Runs a single-job listener.
     * @return null on success, the failure otherwise
     */
    @Nullable Failure run(ClaimedJob job, JobContextImpl.LeaseExtender leaseExtender) {
        JobContextImpl context = new JobContextImpl(job, mapper, leaseExtender);
        observer.started(context);
        long start = System.nanoTime();
        try {
            Object payload = handler.readPayload(job.id(), job.payloadJson(), job.payloadType());
            handler.invoke(payload, context);
            observer.succeeded(context, Duration.ofNanos(System.nanoTime() - start));
            return null;
        }
        catch (Throwable ex) {
            rethrowIfFatal(ex);
            return failure(context, ex, start);
        }
    }

    /**
     * Runs a batch listener on all jobs whose payload can be read; jobs whose payload cannot be read fail on
     * their own, and the rest fail together if the listener throws.
     * @return the failures, empty on success
     */
    List<Failure> runBatch(List<ClaimedJob> jobs) {
        long start = System.nanoTime();
        List<Failure> failures = new ArrayList<>();
        List<JobContextImpl> readable = new ArrayList<>(jobs.size());
        List<@Nullable Object> payloads = new ArrayList<>(jobs.size());
        for (ClaimedJob job : jobs) {
            JobContextImpl context = new JobContextImpl(job, mapper, JobContextImpl.LeaseExtender.NONE);
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
        try {
            handler.invokeBatch(payloads);
            Duration duration = Duration.ofNanos(System.nanoTime() - start);
            readable.forEach((job) -> observer.succeeded(job, duration));
        }
        catch (Throwable ex) {
            rethrowIfFatal(ex);
            readable.forEach((job) -> failures.add(failure(job, ex, start)));
        }
        return failures;
    }

    /** The failure of a job whose handler succeeded but whose outcome could not be committed. */
    Failure failed(ClaimedJob job, Throwable error) {
        return failure(new JobContextImpl(job, mapper, JobContextImpl.LeaseExtender.NONE), error, System.nanoTime());
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
        return new Failure(job, decision,
                new FailureUpdate(job.id(), job.attempt(), job.maxAttempts(), decision.retryDelay(), truncate(text)),
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

    private static void rethrowIfFatal(Throwable error) {
        if (error instanceof VirtualMachineError virtualMachineError) {
            throw virtualMachineError;
        }
    }

    private static String stackTrace(Throwable error) {
        StringWriter writer = new StringWriter();
        error.printStackTrace(new PrintWriter(writer));
        return writer.toString();
    }

    /** Bounded, and without NUL characters, which a PostgreSQL text value cannot hold. */
    private static String truncate(String text) {
        String bounded = (text.length() <= MAX_ERROR_LENGTH) ? text : text.substring(0, MAX_ERROR_LENGTH);
        return bounded.replace('\u0000', '\uFFFD');
    }

    /**
     * A failed attempt and what to do about it.
     *
     * @param job the job
     * @param decision retry or dead
     * @param update the row update that records it
     */
    record Failure(ClaimedJob job, FailureDecision decision, FailureUpdate update, Throwable error) {

        /** Whether the handler stopped because its thread was interrupted (a container stopping). */
        boolean interrupted() {
            return error instanceof InterruptedException || error.getCause() instanceof InterruptedException;
        }
    }
}
