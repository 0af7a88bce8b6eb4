package io.pgqueue.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A batch: its members' counts and its callbacks.
 *
 * @param id batch id
 * @param name the name it was opened with
 * @param state where it is
 * @param counts its members by how they stand
 * @param properties the properties its callbacks receive
 * @param callbacks its callbacks, by event
 * @param createdAt when it was opened
 * @param sealedAt when it was sealed, or null while open
 * @param finishedAt when its last member finished, or null
 */
public record BatchInfo(long id, String name, BatchState state, BatchCounts counts, Map<String, String> properties,
        List<BatchCallbackInfo> callbacks, Instant createdAt, @Nullable Instant sealedAt, @Nullable Instant finishedAt) {

    public BatchInfo {
        properties = Map.copyOf(properties);
        callbacks = List.copyOf(callbacks);
    }
}
