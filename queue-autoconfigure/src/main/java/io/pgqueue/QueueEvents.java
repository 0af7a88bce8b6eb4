package io.pgqueue;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Emits events that jobs wait for with {@code JobContext.awaitEvent} (docs/durable-execution.md). The first emit
 * of a key wins and is kept for its retention, so an emit before the await is delivered when the await comes; the
 * jobs waiting for the key run again within milliseconds, on any node. Joins the caller's transaction on
 * pgqueue's DataSource (the event exists, and its jobs wake, once that commits); outside of one it commits on
 * its own. {@code pgqueue.emit(key, payload, retention)} does the same from SQL.
 */
public interface QueueEvents {

    /**
     * Emits an event with the default retention ({@code pgqueue.durable.event-retention}).
     *
     * @param key 1 to 512 characters, not starting with {@code pgqueue:} (pgqueue's own)
     * @param payload written as JSON (data: records, beans with getters, collections, strings, numbers), or null
     * @return whether this emit was the key's first (false: an earlier one stands, this one changed nothing)
     * @throws IllegalArgumentException for an invalid key or a payload that cannot be written as JSON; nothing is
     * stored
     */
    boolean emit(String key, @Nullable Object payload);

    /** As {@link #emit(String, Object)}, the event kept for {@code retention}. */
    boolean emit(String key, @Nullable Object payload, Duration retention);
}
