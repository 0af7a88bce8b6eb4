package io.pgqueue.internal.listener;

/**
 * The sizes a LEASE poller claims: a count of free workers short of a batch is rounded down to one of a few
 * sizes (at most a fifth apart), a full batch is claimed whole. A container's claims then use a few
 * statements, each with its limit written in, which PostgreSQL plans once (its generic plan) instead of at
 * every claim.
 */
final class ClaimSizes {

    private static final int[] LADDER = { 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 25, 32, 40, 50, 64, 80, 100, 125, 160,
            200, 250, 320, 400, 500, 640, 800, 1000 };

    private ClaimSizes() {
    }

    /** The size to claim with {@code free} workers free and claims of at most {@code batch} jobs. */
    static int floor(int free, int batch) {
        if (free >= batch) {
            return batch;
        }
        if (free > LADDER[LADDER.length - 1]) {
            return free / 250 * 250;
        }
        int size = 1;
        for (int step : LADDER) {
            if (step > free) {
                break;
            }
            size = step;
        }
        return size;
    }
}
