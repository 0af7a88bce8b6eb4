package io.pgqueue.internal.publish;

import java.time.Duration;
import java.util.Objects;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.QueueEvents;
import io.pgqueue.internal.persistence.DurableRepository;
import io.pgqueue.model.EventKeys;
import io.pgqueue.internal.persistence.PostgresText;
import org.jspecify.annotations.Nullable;

/** pgqueue's {@link QueueEvents} on one database. */
public final class JdbcQueueEvents implements QueueEvents {

    private final DurableRepository repository;

    private final JobPayloadCodec codec;

    private final Duration defaultRetention;

    public JdbcQueueEvents(DurableRepository repository, JobPayloadCodec codec, Duration defaultRetention) {
        this.repository = repository;
        this.codec = codec;
        this.defaultRetention = defaultRetention;
    }

    @Override
    public boolean emit(String key, @Nullable Object payload) {
        return emit(key, payload, defaultRetention);
    }

    @Override
    public boolean emit(String key, @Nullable Object payload, Duration retention) {
        EventKeys.check(key);
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("An event's retention must be positive: " + retention);
        }
        String json = (payload != null) ? PostgresText.json(codec.writeData("Payload of type "
                + payload.getClass().getName() + " of event '" + key + "'", payload))
                : null;
        return repository.emit(key, json, retention);
    }
}
