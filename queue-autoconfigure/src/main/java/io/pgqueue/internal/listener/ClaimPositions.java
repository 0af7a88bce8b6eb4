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
 * visiting its row, so under a held snapshot each claim reads all the jobs claimed before it. While the
 * {@link VacuumHorizonWatch} reports a hold, claims start where the previous one stopped (higher priorities
 * are still read first). Every {@link #RESCAN_EVERY_NANOS} a claim reads from the start, and where it stops
 * becomes the position, even if that is behind the last one: the jobs that became ready behind it (sent by a
 * transaction that committed after a later job was claimed, rescued, released, rolled back, a group's next
 * job) are taken by the claims that follow, which read on from there. Without a hold, every claim reads from
 * the start, as always.
 */
final class ClaimPositions {

    static final long RESCAN_EVERY_NANOS = 100_000_000L;

    private final @Nullable VacuumHorizonWatch horizon;

    private final AtomicReference<@Nullable ClaimCursor> last = new AtomicReference<>();

    /** Counts the reads from the start: a claim made before the latest of them does not move the position. */
    private final AtomicLong generation = new AtomicLong();

    private final AtomicLong lastFromStart = new AtomicLong(System.nanoTime());

    ClaimPositions(@Nullable VacuumHorizonWatch horizon) {
        this.horizon = horizon;
    }

    /** A claim to make, and the read from the start it follows. */
    record Ticket(ClaimRequest request, long generation) {
    }

    /** The request as the next claim should make it: from the start, or after the last position. */
    Ticket next(ClaimRequest request) {
        ClaimCursor cursor = last.get();
        long now = System.nanoTime();
        if (cursor == null || horizon == null || !horizon.heldLongerThan(VacuumHorizonWatch.CLAIMS_FROM_CURSOR_AFTER)
                || now - lastFromStart.get() >= RESCAN_EVERY_NANOS) {
            lastFromStart.set(now);
            return new Ticket(request, generation.incrementAndGet());
        }
        return new Ticket(request.after(cursor), generation.get());
    }

    /** Remembers where a claim stopped. */
    void claimed(Ticket ticket, Claim claim) {
        ClaimCursor position = claim.last();
        if (position == null || generation.get() != ticket.generation()) {
            return;
        }
        if (ticket.request().after() == null) {
            // the first jobs in claim order that no one holds: what lies before them is claimed or gone
            last.set(position);
        }
        else {
            last.accumulateAndGet(position, (previous, next) -> (previous == null) ? next : ClaimCursor.later(previous, next));
        }
    }
}
