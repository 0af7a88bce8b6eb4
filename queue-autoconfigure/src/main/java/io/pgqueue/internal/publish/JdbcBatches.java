package io.pgqueue.internal.publish;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

import io.pgqueue.JobPayloadCodec;
import org.jspecify.annotations.Nullable;
import io.pgqueue.SendOptions;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.batch.InvalidBatchException;
import io.pgqueue.internal.persistence.BatchRepository;
import io.pgqueue.model.BatchEventType;
import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.QueueNames;
import io.pgqueue.model.SendResult;

/**
 * pgqueue's {@link BatchOperations}: opens batches, and adds members through the {@link JdbcQueueTemplate}'s
 * send path (options, dedup, trace headers and wake-ups as any send) under a lock that keeps the batch open until
 * the caller's transaction ends.
 */
public final class JdbcBatches implements BatchOperations {

    private final BatchRepository repository;

    private final JdbcQueueTemplate template;

    private final JobPayloadCodec codec;

    private final Predicate<String> knownQueue;

    /** Where a queue lives when not in this database (several databases), else null. */
    private Function<String, @Nullable String> elsewhere = (queue) -> null;

    /**
     * @param knownQueue whether a queue exists for pgqueue: a callback on any other is refused
     */
    public JdbcBatches(BatchRepository repository, JdbcQueueTemplate template, JobPayloadCodec codec,
            Predicate<String> knownQueue) {
        this.repository = repository;
        this.template = template;
        this.codec = codec;
        this.knownQueue = knownQueue;
    }

    /**
     * With queues in several databases: where each queue lives when not in this one (a description such as
     * "database 'reporting'"), or null. A batch, its members and its callbacks stay within one database.
     */
    public void setQueuePlacement(Function<String, @Nullable String> elsewhere) {
        this.elsewhere = elsewhere;
    }

    private void checkPlacement(String what, String queue) {
        String other = elsewhere.apply(queue);
        if (other != null) {
            throw new InvalidBatchException(what + " is on queue '" + queue + "', which lives in " + other
                    + ": a batch's members and callbacks must all live in one database; nothing was added");
        }
    }

    @Override
    public long open(Batch batch) {
        Objects.requireNonNull(batch, "batch");
        List<BatchRepository.NewCallback> callbacks = new ArrayList<>();
        for (Map.Entry<BatchEventType, Batch.Callback> entry : batch.callbacks().entrySet()) {
            String queue = entry.getValue().queue();
            try {
                QueueNames.validate(queue);
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidBatchException("The " + entry.getKey().value() + " callback of batch '" + batch.name()
                        + "': " + ex.getMessage());
            }
            checkPlacement("The " + entry.getKey().value() + " callback of batch '" + batch.name() + "'", queue);
            if (!knownQueue.test(queue)) {
                throw new InvalidBatchException("The " + entry.getKey().value() + " callback of batch '" + batch.name()
                        + "' names queue '" + queue + "', which nothing knows: no listener of this application, no "
                        + "pgqueue.queues entry, no job ever sent to it");
            }
            SendOptions options = entry.getValue().options();
            Duration delay = options.delay();
            Duration timeout = options.timeout();
            callbacks.add(new BatchRepository.NewCallback(entry.getKey().value(), queue, options.priority(),
                    (delay != null) ? delay.toMillis() : 0L, options.maxAttempts(), options.groupKey(),
                    (timeout != null) ? timeout.toMillis() : null,
                    options.headers().isEmpty() ? null : codec.writeHeaders(options.headers())));
        }
        return repository.open(batch.name(), batch.properties(), batch.completeOnCancel(), callbacks);
    }

    @Override
    public SendResult add(long batchId, String queue, Object payload, SendOptions options) {
        checkMember(options);
        checkPlacement("A member of batch " + batchId, queue);
        return repository.inTransaction(() -> {
            lockOpen(batchId);
            return template.send(queue, payload, options, batchId);
        });
    }

    @Override
    public BatchSendResult addAll(long batchId, String queue, Collection<?> payloads, SendOptions options) {
        checkMember(options);
        checkPlacement("A member of batch " + batchId, queue);
        return repository.inTransaction(() -> {
            lockOpen(batchId);
            return template.sendBatch(queue, payloads, options, batchId);
        });
    }

    @Override
    public void seal(long batchId) {
        if (repository.seal(batchId) == null) {
            throw new InvalidBatchException("Batch " + batchId + " does not exist");
        }
    }

    private void lockOpen(long batchId) {
        String state = repository.lockForAdding(batchId);
        if (state == null) {
            throw new InvalidBatchException("Batch " + batchId + " does not exist: nothing was added");
        }
        if (!"open".equals(state)) {
            throw new InvalidBatchException("Batch " + batchId + " is " + ("cancelled".equals(state) ? state : "sealed ("
                    + state + ")") + ": members can only be added before its seal; nothing was added");
        }
    }

    private static void checkMember(SendOptions options) {
        Objects.requireNonNull(options, "options");
        if (options.debounceKey() != null) {
            throw new InvalidBatchException("A debounced send cannot be a batch member (its job may be replaced by a "
                    + "later send): send it on its own");
        }
    }
}
