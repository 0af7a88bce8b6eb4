package io.pgqueue.model;

import org.jspecify.annotations.Nullable;

/**
 * Which batches to list, newest first, keyset-paged: pass the last id of a page as {@code beforeId} for the next.
 *
 * @param name only batches of this name, or null
 * @param state only batches in this state, or null
 * @param beforeId only batches with a lower id, or null for the newest
 * @param limit at most this many (1 to 1,000)
 */
public record BatchQuery(@Nullable String name, @Nullable BatchState state, @Nullable Long beforeId, int limit) {

    public BatchQuery {
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be between 1 and 1000: " + limit);
        }
    }

    /** The newest batches, any name and state. */
    public static BatchQuery newest(int limit) {
        return new BatchQuery(null, null, null, limit);
    }
}
