package io.pgqueue.model;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One queue's state for operators.
 *
 * @param counts counts per state and totals
 * @param lag age of the oldest ready job, or null when none is ready
 * @param paused whether the queue is paused cluster-wide
 * @param listeners the nodes whose containers listen to the queue, as their last heartbeats said
 */
public record QueueStats(QueueCounts counts, @Nullable Duration lag, boolean paused,
        List<QueueListenerNode> listeners) {

    public QueueStats {
        listeners = List.copyOf(listeners);
    }

    /** A queue no node reported listening to. */
    public QueueStats(QueueCounts counts, @Nullable Duration lag, boolean paused) {
        this(counts, lag, paused, List.of());
    }

    public String queue() {
        return counts.queue();
    }

    /**
     * Whether the queue's oldest ready job has waited at least {@code after} while no node listens to it (and it
     * is not paused): the usual cause is a listener that is not a Spring bean, or that runs on no deployed node.
     */
    public boolean unattended(Duration after) {
        return !paused && listeners.isEmpty() && lag != null && lag.compareTo(after) >= 0;
    }
}
