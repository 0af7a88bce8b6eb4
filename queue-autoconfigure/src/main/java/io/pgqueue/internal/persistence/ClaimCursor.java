package io.pgqueue.internal.persistence;

import java.time.Instant;
import java.util.Comparator;

/**
 * A position in a queue's claim order (priority first, then run-at, then id): where the last claim stopped.
 * A claim after it starts its read of the ready index there instead of at the queue's first entry, past the
 * entries of the jobs already claimed, which vacuum cannot remove while an old snapshot is held.
 *
 * @param priority the priority of the last job claimed
 * @param runAt its run-at
 * @param id its id
 */
public record ClaimCursor(int priority, Instant runAt, long id) {

    /** Claim order: higher priority first, then earlier run-at, then lower id. */
    public static final Comparator<ClaimCursor> CLAIM_ORDER = Comparator.comparingInt((ClaimCursor cursor) -> -cursor.priority)
        .thenComparing(ClaimCursor::runAt)
        .thenComparingLong(ClaimCursor::id);

    /** The later of the two in claim order. */
    public static ClaimCursor later(ClaimCursor a, ClaimCursor b) {
        return (CLAIM_ORDER.compare(a, b) >= 0) ? a : b;
    }
}
