package io.pgqueue.model;

/**
 * A batch's members by how they stand, read from the per-batch counters (exact, without counting rows).
 *
 * @param active waiting, scheduled, ready or running
 * @param dead ended dead (and not retried since)
 * @param completed completed
 * @param cancelled cancelled
 */
public record BatchCounts(long active, long dead, long completed, long cancelled) {

    /** Every member added. */
    public long total() {
        return active + dead + completed + cancelled;
    }

    /** The members that finished (completed, dead or cancelled). */
    public long finished() {
        return dead + completed + cancelled;
    }
}
