package io.pgqueue.admin;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One queue's state for operators.
 *
 * @param counts counts per state and totals
 * @param lag age of the oldest ready job, or null when none is ready
 * @param paused whether the queue is paused cluster-wide
 */
public record QueueStats(QueueCounts counts, @Nullable Duration lag, boolean paused) {

    public String queue() {
        return counts.queue();
    }
}
