package io.pgqueue.internal.publish;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.JobRequest;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.internal.observe.SendObserver;
import io.pgqueue.internal.persistence.JobAdminPort;
import io.pgqueue.internal.persistence.JobPublishPort;
import io.pgqueue.internal.persistence.NewJob;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.NoSuchJobException;
import io.pgqueue.model.QueueNames;
import io.pgqueue.model.SendResult;
import org.jspecify.annotations.Nullable;

/**
 * pgqueue's {@link QueueTemplate}: validates, serialises with the application's JSON mapper and inserts
 * in one statement per chunk. Large batches are cut into chunks of {@code batchChunkSize} rows, one
 * statement each.
 */
public class JdbcQueueTemplate implements QueueTemplate {

    private final JobPublishPort jobs;

    private final JobAdminPort lookups;

    private final JobPayloadCodec codec;

    private final Wakeups wakeups;

    private final int batchChunkSize;

    private volatile SendObserver observer = SendObserver.NONE;

    private Predicate<String> fairQueues = (queue) -> false;

    public JdbcQueueTemplate(JobPublishPort jobs, JobAdminPort lookups, JobPayloadCodec codec, Wakeups wakeups,
            int batchChunkSize) {
        if (batchChunkSize < 1) {
            throw new IllegalArgumentException("batchChunkSize must be at least 1");
        }
        this.jobs = jobs;
        this.lookups = lookups;
        this.codec = codec;
        this.wakeups = wakeups;
        this.batchChunkSize = batchChunkSize;
    }

    /**
     * The queues configured fair ({@code pgqueue.queues.<name>.fairness}): jobs sent to them without a fairness key get
     * the default key.
     */
    public void setFairQueues(Predicate<String> fairQueues) {
        this.fairQueues = Objects.requireNonNull(fairQueues, "fairQueues");
    }

    /** Observes every send from now on (pgqueue.template.observation-enabled). */
    public void setObserver(SendObserver observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    @Override
    public long send(String queue, Object payload) {
        SendResult result = send(queue, payload, SendOptions.defaults());
        // without a dedup key an insert cannot conflict
        return Objects.requireNonNull(result.jobId());
    }

    @Override
    public SendResult send(String queue, Object payload, SendOptions options) {
        return send(queue, payload, options, null);
    }

    /**
     * A send; with a batch id, the job is a member of that batch, which the caller holds locked open in its
     * transaction (see {@link JdbcBatches}).
     */
    SendResult send(String queue, Object payload, SendOptions options, @Nullable Long batchId) {
        QueueNames.validate(queue);
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(options, "options");
        return observer.observe(queue, options.headers(), 1, (headers, sentJob) -> {
            SendResult result = send(queue, toNewJob(queue, payload, options, headers), options, batchId);
            if (result.created()) {
                sentJob.accept(Objects.requireNonNull(result.jobId()));
            }
            return result;
        });
    }

    private SendResult send(String queue, NewJob job, SendOptions options, @Nullable Long batchId) {
        if (job.debounceKey() != null) {
            JobPublishPort.DebouncedSend sent = jobs.enqueueDebounced(queue, job);
            return sent.inserted() ? SendResult.created(sent.jobId()) : SendResult.duplicateOf(sent.jobId());
        }
        List<Long> ids = insert(queue, List.of(job), batchId);
        if (!ids.isEmpty()) {
            return SendResult.created(ids.get(0));
        }
        return SendResult.duplicateOf(jobs.findLiveByDedupKey(queue, Objects.requireNonNull(options.dedupKey())));
    }

    @Override
    public BatchSendResult sendBatch(String queue, Collection<?> payloads) {
        return sendBatch(queue, payloads, SendOptions.defaults());
    }

    @Override
    public BatchSendResult sendBatch(String queue, Collection<?> payloads, SendOptions options) {
        return sendBatch(queue, payloads, options, (Long) null);
    }

    /** A batch send; with a batch id, as {@link #send(String, Object, SendOptions, Long)}. */
    BatchSendResult sendBatch(String queue, Collection<?> payloads, SendOptions options, @Nullable Long batchId) {
        QueueNames.validate(queue);
        Objects.requireNonNull(payloads, "payloads");
        Objects.requireNonNull(options, "options");
        return observer.observe(queue, options.headers(), payloads.size(),
                (headers, sentJob) -> sendBatch(queue, payloads, options, headers, batchId));
    }

    /** Sends a batch; every job carries {@code traceHeaders} (the batch's trace context) beside its own. */
    private BatchSendResult sendBatch(String queue, Collection<?> payloads, SendOptions options,
            Map<String, String> traceHeaders, @Nullable Long batchId) {
        List<Long> ids = new ArrayList<>(payloads.size());
        List<NewJob> chunk = new ArrayList<>(Math.min(payloads.size(), batchChunkSize));
        for (Object element : payloads) {
            Objects.requireNonNull(element, "payloads must not contain null");
            NewJob job = (element instanceof JobRequest request)
                    ? toNewJob(queue, request.payload(), request.options(), merged(request.options(), traceHeaders))
                    : toNewJob(queue, element, options, traceHeaders);
            if (job.debounceKey() != null) {
                throw new IllegalArgumentException("A debounced send cannot be part of a batch: send it on its own");
            }
            chunk.add(job);
            if (chunk.size() == batchChunkSize) {
                ids.addAll(insert(queue, chunk, batchId));
                chunk.clear();
            }
        }
        ids.addAll(insert(queue, chunk, batchId));
        return new BatchSendResult(ids, payloads.size());
    }

    private List<Long> insert(String queue, List<NewJob> batch, @Nullable Long batchId) {
        if (batch.isEmpty()) {
            return List.of();
        }
        return wakeups.enqueue(queue, (notify) -> (batchId != null) ? jobs.enqueueToBatch(queue, batchId, batch, notify)
                : jobs.enqueue(queue, batch, notify));
    }

    /** A job request's own headers and the batch's trace context. */
    private static Map<String, String> merged(SendOptions options, Map<String, String> traceHeaders) {
        if (traceHeaders.isEmpty()) {
            return options.headers();
        }
        Map<String, String> headers = new LinkedHashMap<>(traceHeaders);
        headers.putAll(options.headers());
        return headers;
    }

    private NewJob toNewJob(String queue, Object payload, SendOptions options, Map<String, String> headers) {
        Duration delay = (options.debounceWindow() != null) ? options.debounceWindow() : options.delay();
        return new NewJob(codec.writePayload(queue, payload), payload.getClass().getName(),
                codec.writeHeaders(headers), options.priority(), options.runAt(),
                (delay != null) ? delay.toMillis() : 0L, options.maxAttempts(), options.dedupKey(), options.groupKey(),
                millis(options.timeout()), millis(options.dedupFor()), options.debounceKey(), fairnessKey(queue, options));
    }

    /** The job's fairness key: its own, else the default key when the queue is fair, else none. */
    private @Nullable String fairnessKey(String queue, SendOptions options) {
        return (options.fairnessKey() != null) ? options.fairnessKey()
                : fairQueues.test(queue) ? SendOptions.DEFAULT_FAIRNESS_KEY : null;
    }

    private static @Nullable Long millis(@Nullable Duration duration) {
        return (duration != null) ? duration.toMillis() : null;
    }

    @Override
    public <T> Optional<T> output(long jobId, Class<T> type) {
        JobInfo job = lookups.job(jobId);
        if (job == null) {
            throw new NoSuchJobException(jobId);
        }
        return (job.output() != null) ? Optional.ofNullable(codec.mapper().readValue(job.output(), type))
                : Optional.empty();
    }
}
