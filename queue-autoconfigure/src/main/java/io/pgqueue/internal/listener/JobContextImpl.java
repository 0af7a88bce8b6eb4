package io.pgqueue.internal.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.pgqueue.SendOptions;
import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.internal.persistence.PostgresText;
import io.pgqueue.listener.JobCancelledException;
import io.pgqueue.listener.JobContext;
import io.pgqueue.workflow.WorkflowContext;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ParameterizedTypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link JobContext} of one claimed job, handed to its listener and to observers. Headers are decoded on
 * first use: most handlers never read them.
 */
final class JobContextImpl implements JobContext {

    /** Longest progress message kept. */
    static final int MAX_PROGRESS_MESSAGE = 1000;

    /** Extends the lease of one job; a no-op in TRANSACTIONAL mode. */
    @FunctionalInterface
    interface LeaseExtender {

        LeaseExtender NONE = (job, duration) -> false;

        boolean extend(ClaimedJob job, Duration duration);
    }

    private final ClaimedJob job;

    private final HandlerRun run;

    private final JsonMapper mapper;

    private final LeaseExtender leaseExtender;

    private volatile @Nullable Map<String, String> headers;

    private volatile @Nullable Duration snoozedFor;

    private final WorkflowContexts workflows;

    private volatile @Nullable WorkflowContext workflow;

    /** Starts the durable calls of a run: null where there are none (a batch listener's jobs). */
    private final @Nullable DurableStart durableStart;

    private @Nullable DurableRun durable;

    /** Makes the durable calls of a single job's run, on its first durable call. */
    @FunctionalInterface
    interface DurableStart {

        DurableRun start(JobContextImpl context);
    }

    /** Makes the workflow context of a node's job. */
    @FunctionalInterface
    interface WorkflowContexts {

        WorkflowContext of(ClaimedJob job);
    }

    JobContextImpl(HandlerRun run, JsonMapper mapper, LeaseExtender leaseExtender, WorkflowContexts workflows,
            @Nullable DurableStart durableStart) {
        this(run.job(), run, mapper, leaseExtender, workflows, durableStart);
    }

    /** The context of one job of a batch run: no durable calls. */
    JobContextImpl(ClaimedJob job, HandlerRun run, JsonMapper mapper, LeaseExtender leaseExtender,
            WorkflowContexts workflows) {
        this(job, run, mapper, leaseExtender, workflows, null);
    }

    private JobContextImpl(ClaimedJob job, HandlerRun run, JsonMapper mapper, LeaseExtender leaseExtender,
            WorkflowContexts workflows, @Nullable DurableStart durableStart) {
        this.durableStart = durableStart;
        this.workflows = workflows;
        this.job = job;
        this.run = run;
        this.mapper = mapper;
        this.leaseExtender = leaseExtender;
    }

    @Override
    public @Nullable Long batchId() {
        return job.batchId();
    }

    @Override
    public @Nullable WorkflowContext workflow() {
        if (!job.inWorkflow()) {
            return null;
        }
        WorkflowContext current = workflow;
        if (current == null) {
            current = workflows.of(job);
            workflow = current;
        }
        return current;
    }

    /** The delay the handler asked for with {@link #snooze(Duration)}, or null. */
    @Nullable Duration snoozedFor() {
        return snoozedFor;
    }

    ClaimedJob job() {
        return job;
    }

    @Override
    public long id() {
        return job.id();
    }

    @Override
    public String queue() {
        return job.queue();
    }

    @Override
    public int attempt() {
        return job.attempt();
    }

    @Override
    public int maxAttempts() {
        return job.maxAttempts();
    }

    @Override
    public Map<String, String> headers() {
        Map<String, String> decoded = headers;
        if (decoded == null) {
            decoded = (job.headersJson() != null) ? decodeHeaders(job.headersJson()) : Map.of();
            headers = decoded;
        }
        return decoded;
    }

    /**
     * Headers as text, whatever SQL put in the column ({@code pgqueue.send()} or an UPDATE can store any JSON):
     * a number or a boolean as its text, an object or an array as its JSON, a null left out; anything but a
     * JSON object reads as no headers. Reading headers runs before the handler (tracing reads them), where an
     * exception would escape the run's error handling.
     */
    private Map<String, String> decodeHeaders(String json) {
        JsonNode tree;
        try {
            tree = mapper.readTree(json);
        }
        catch (RuntimeException ex) {
            return Map.of();
        }
        if (tree == null || !tree.isObject()) {
            return Map.of();
        }
        Map<String, String> decoded = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> header : tree.properties()) {
            JsonNode value = header.getValue();
            if (value.isNull()) {
                continue;
            }
            decoded.put(header.getKey(), value.isValueNode() ? value.asString() : value.toString());
        }
        return Map.copyOf(decoded);
    }

    @Override
    public Instant enqueuedAt() {
        return job.enqueuedAt();
    }

    @Override
    public Instant dueAt() {
        return job.dueAt();
    }

    @Override
    public Instant claimedAt() {
        return job.claimedAt();
    }

    @Override
    public @Nullable String payloadType() {
        return job.payloadType();
    }

    @Override
    public boolean extendLease(Duration duration) {
        return leaseExtender.extend(job, duration);
    }

    @Override
    public boolean isCancellationRequested() {
        return run.cancelRequested();
    }

    @Override
    public void checkCancelled() {
        if (run.cancelRequested()) {
            throw new JobCancelledException(job.id());
        }
    }

    @Override
    public void snooze(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("snooze delay must not be negative: " + delay);
        }
        snoozedFor = delay;
    }

    @Override
    public void progress(int percent, @Nullable String message) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("progress percent must be between 0 and 100: " + percent);
        }
        String bounded = (message != null && message.length() > MAX_PROGRESS_MESSAGE)
                ? message.substring(0, MAX_PROGRESS_MESSAGE) : message;
        run.reportProgress(percent, (bounded != null) ? PostgresText.text(bounded) : null);
    }

    // ---- durable execution: DurableRun does the work, on the job's first durable call ----------------------

    private DurableRun durable() {
        DurableRun current = durable;
        if (current == null) {
            if (durableStart == null) {
                throw new IllegalStateException("Durable execution (steps, sleeps, awaits, spawn) is for single-job "
                        + "listeners; job " + job.id() + " of queue '" + job.queue() + "' runs in a batch listener");
            }
            current = durableStart.start(this);
            durable = current;
        }
        return current;
    }

    @Override
    public <T> @Nullable T step(String name, Class<T> type, Callable<? extends @Nullable T> body) {
        return durable().step(name, mapper.constructType(Objects.requireNonNull(type, "type")), body, false);
    }

    @Override
    public <T> @Nullable T step(String name, ParameterizedTypeReference<T> type, Callable<? extends @Nullable T> body) {
        return durable().step(name, mapper.constructType(Objects.requireNonNull(type, "type").getType()), body, false);
    }

    @Override
    public <T> @Nullable T step(String name, Callable<? extends @Nullable T> body) {
        return durable().step(name, null, body, false);
    }

    @Override
    public <T> @Nullable T transactionalStep(String name, Class<T> type, Callable<? extends @Nullable T> body) {
        return durable().step(name, mapper.constructType(Objects.requireNonNull(type, "type")), body, true);
    }

    @Override
    public void sleep(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("sleep duration must not be negative: " + duration);
        }
        durable().sleepUntil(Instant.now().plus(duration));
    }

    @Override
    public void sleepUntil(Instant until) {
        durable().sleepUntil(Objects.requireNonNull(until, "until"));
    }

    @Override
    public <T> Optional<T> awaitEvent(String key, Duration timeout, Class<T> type) {
        return durable().awaitEvent(key, Objects.requireNonNull(timeout, "timeout"),
                mapper.constructType(Objects.requireNonNull(type, "type")));
    }

    @Override
    public boolean awaitEvent(String key, Duration timeout) {
        return durable().awaitEvent(key, Objects.requireNonNull(timeout, "timeout"), null).isPresent();
    }

    @Override
    public long spawn(String queue, Object payload, SendOptions options) {
        return durable().spawn(queue, payload, Objects.requireNonNull(options, "options"));
    }

    @Override
    public <T> @Nullable T awaitJob(long jobId, Class<T> type) {
        return durable().awaitJob(jobId, mapper.constructType(Objects.requireNonNull(type, "type")));
    }

    @Override
    public String toString() {
        return "JobContext[id=" + job.id() + ", queue=" + job.queue() + ", attempt=" + job.attempt() + "]";
    }
}
