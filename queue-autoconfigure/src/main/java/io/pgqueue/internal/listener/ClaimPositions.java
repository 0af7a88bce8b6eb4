package io.pgqueue.internal.listener;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.persistence.Claim;
import io.pgqueue.internal.persistence.ClaimCursor;
import io.pgqueue.internal.persistence.ClaimRequest;
import org.jspecify.annotations.Nullable;

/**
 * Where a container's claims start while vacuum is held back. A claim reads the queue's ready index from its
 * first entry; every job claimed since vacuum last ran left an entry there that no claim can skip without
 * visiting its row, so under a held snapshot each claim reads all the jobs claimed before it, and a drain slows
 * down quadratically. While the {@link VacuumHorizonWatch} reports a hold, claims start where the previous one
 * stopped (higher priorities are still read first), and once every {@link #RESCAN_EVERY_NANOS} a claim reads
 * from the start, for the jobs that became ready behind the cursor (rescued, released, rolled back, a group's
 * next job): they wait at most that long. Without a hold, every claim reads from the start, as always.
 */
final class ClaimPositions {

    static final long RESCAN_EVERY_NANOS = 1_000_000_000L;

    private final @Nullable VacuumHorizonWatch horizon;

    private final AtomicReference<@Nullable ClaimCursor> last = new AtomicReference<>();

    private final AtomicLong lastFromStart = new AtomicLong(System.nanoTime());

    ClaimPositions(@Nullable VacuumHorizonWatch horizon) {
        this.horizon = horizon;
    }

    /** The request as the next claim should make it: from the start, or after the last position. */
    ClaimRequest next(ClaimRequest request) {
        ClaimCursor cursor = last.get();
        long now = System.nanoTime();
        if (cursor == null || horizon == null || !horizon.heldLongerThan(VacuumHorizonWatch.CLAIMS_FROM_CURSOR_AFTER)
                || now - lastFromStart.get() >= RESCAN_EVERY_NANOS) {
            lastFromStart.set(now);
            last.set(null);
            return request;
        }
        return request.after(cursor);
    }

    /** Remembers where a claim stopped. */
    void claimed(Claim claim) {
        ClaimCursor position = claim.last();
        if (position != null) {
            last.accumulateAndGet(position, (previous, next) -> (previous == null) ? next : ClaimCursor.later(previous, next));
        }
    }
}
