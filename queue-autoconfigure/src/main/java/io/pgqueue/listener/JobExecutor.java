package io.pgqueue.listener;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgqueue.listener.adapter.MethodJobHandler;
import io.pgqueue.listener.error.ExponentialBackoff;
import io.pgqueue.listener.error.FailedJob;
import io.pgqueue.listener.error.FailureDecision;
import io.pgqueue.listener.error.QueueErrorHandler;
import io.pgqueue.store.ClaimedJob;
import io.pgqueue.store.FailureUpdate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs a listener on claimed jobs and turns what happened into outcomes: the part both delivery modes share.
 * Never throws for a handler's failure: every job gets a success or a failure decision.
 */
final class JobExecutor {

    /** Longest {@code last_error} kept: the message and the top of the stack trace. */
    static final int MAX_ERROR_LENGTH = 4000;

    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
    };

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
        observer.started(job);
        long start = System.nanoTime();
        try {
            Object payload = handler.readPayload(job);
            handler.invoke(payload, new JobContextImpl(job, headers(job), leaseExtender));
            observer.succeeded(job, Duration.ofNanos(System.nanoTime() - start));
            return null;
        }
        catch (Throwable ex) {
            rethrowIfFatal(ex);
            return failure(job, ex, start);
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
        List<ClaimedJob> readable = new ArrayList<>(jobs.size());
        List<@Nullable Object> payloads = new ArrayList<>(jobs.size());
        for (ClaimedJob job : jobs) {
            observer.started(job);
            try {
                payloads.add(handler.readPayload(job));
                readable.add(job);
            }
            catch (RuntimeException ex) {
                failures.add(failure(job, ex, start));
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

    private Failure failure(ClaimedJob job, Throwable error, long start) {
        FailureDecision decision = decide(job, error);
        if (decision.isDead()) {
            logger.warn("Job " + job.id() + " of queue '" + job.queue() + "' is dead after attempt " + job.attempt()
                    + ": " + decision.reason(), error);
        }
        else if (logger.isInfoEnabled()) {
            logger.info("Job " + job.id() + " of queue '" + job.queue() + "' failed attempt " + job.attempt() + " of "
                    + job.maxAttempts() + ", retrying in " + decision.retryDelay().toMillis() + " ms: " + error);
        }
        observer.failed(job, Duration.ofNanos(System.nanoTime() - start), error, decision);
        String text = (decision.isDead() ? decision.reason() + "\n" : "") + stackTrace(error);
        return new Failure(job, decision,
                new FailureUpdate(job.id(), job.attempt(), decision.retryDelay(), truncate(text)));
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

    private Map<String, String> headers(ClaimedJob job) {
        return (job.headersJson() != null) ? mapper.readValue(job.headersJson(), HEADERS) : Map.of();
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

    private static String truncate(String text) {
        return (text.length() <= MAX_ERROR_LENGTH) ? text : text.substring(0, MAX_ERROR_LENGTH);
    }

    /**
     * A failed attempt and what to do about it.
     *
     * @param job the job
     * @param decision retry or dead
     * @param update the row update that records it
     */
    record Failure(ClaimedJob job, FailureDecision decision, FailureUpdate update) {
    }
}
