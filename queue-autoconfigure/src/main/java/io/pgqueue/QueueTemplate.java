package io.pgqueue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import io.pgqueue.store.JobStore;
import io.pgqueue.store.NewJob;

/**
 * The default {@link QueueOperations}: validates, serialises with the application's JSON mapper and inserts
 * through the {@link JobStore}. Large batches are cut into chunks of {@code batchChunkSize} rows, one
 * statement each.
 */
public class QueueTemplate implements QueueOperations {

    private final JobStore store;

    private final JobPayloadCodec codec;

    private final JobNotifier notifier;

    private final int batchChunkSize;

    public QueueTemplate(JobStore store, JobPayloadCodec codec, JobNotifier notifier, int batchChunkSize) {
        if (batchChunkSize < 1) {
            throw new IllegalArgumentException("batchChunkSize must be at least 1");
        }
        this.store = store;
        this.codec = codec;
        this.notifier = notifier;
        this.batchChunkSize = batchChunkSize;
    }

    @Override
    public long send(String queue, Object payload) {
        SendResult result = send(queue, payload, SendOptions.defaults());
        // without a dedup key an insert cannot conflict
        return Objects.requireNonNull(result.jobId());
    }

    @Override
    public SendResult send(String queue, Object payload, SendOptions options) {
        QueueNames.validate(queue);
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(options, "options");
        List<Long> ids = insert(queue, List.of(toNewJob(queue, payload, options)));
        if (!ids.isEmpty()) {
            return SendResult.created(ids.get(0));
        }
        return SendResult.duplicateOf(store.findActiveByDedupKey(queue, Objects.requireNonNull(options.dedupKey())));
    }

    @Override
    public BatchSendResult sendBatch(String queue, Collection<?> payloads) {
        return sendBatch(queue, payloads, SendOptions.defaults());
    }

    @Override
    public BatchSendResult sendBatch(String queue, Collection<?> payloads, SendOptions options) {
        QueueNames.validate(queue);
        Objects.requireNonNull(payloads, "payloads");
        Objects.requireNonNull(options, "options");
        List<Long> ids = new ArrayList<>(payloads.size());
        List<NewJob> chunk = new ArrayList<>(Math.min(payloads.size(), batchChunkSize));
        for (Object element : payloads) {
            Objects.requireNonNull(element, "payloads must not contain null");
            chunk.add((element instanceof JobRequest request) ? toNewJob(queue, request.payload(), request.options())
                    : toNewJob(queue, element, options));
            if (chunk.size() == batchChunkSize) {
                ids.addAll(insert(queue, chunk));
                chunk.clear();
            }
        }
        ids.addAll(insert(queue, chunk));
        return new BatchSendResult(ids, payloads.size());
    }

    private List<Long> insert(String queue, List<NewJob> jobs) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        JobNotifier.Decision decision = notifier.decide(queue);
        List<Long> ids = store.insert(queue, jobs, decision == JobNotifier.Decision.WITH_INSERT);
        notifier.afterInsert(queue, decision);
        return ids;
    }

    private NewJob toNewJob(String queue, Object payload, SendOptions options) {
        long delayMillis = (options.delay() != null) ? options.delay().toMillis() : 0L;
        return new NewJob(codec.writePayload(queue, payload), payload.getClass().getName(),
                codec.writeHeaders(options.headers()), options.priority(), options.runAt(), delayMillis,
                options.maxAttempts(), options.dedupKey(), options.groupKey());
    }
}
