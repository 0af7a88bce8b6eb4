package io.pgqueue.store;

import java.util.List;

/**
 * A queue's counts, from the counters (never from {@code COUNT(*)}).
 *
 * @param queue queue name
 * @param scheduled jobs waiting for their run-at (delays, backoff)
 * @param ready jobs runnable now
 * @param running jobs claimed and not finished
 * @param dead jobs out of attempts or not processable
 * @param enqueued jobs ever sent (monotonic)
 * @param completed jobs ever finished successfully (monotonic)
 * @param failed failed attempts ever (monotonic)
 * @param deadLettered jobs ever sent dead (monotonic)
 */
public record QueueCounts(String queue, long scheduled, long ready, long running, long dead, long enqueued,
        long completed, long failed, long deadLettered) {

    /** The job states, in the order they are shown. */
    public static final List<String> STATES = List.of("scheduled", "ready", "running", "dead");

    /** The state counts by state name, as the {@code state} tag of metrics. */
    public long count(String state) {
        return switch (state) {
            case "scheduled" -> scheduled;
            case "ready" -> ready;
            case "running" -> running;
            case "dead" -> dead;
            default -> throw new IllegalArgumentException("Unknown state " + state);
        };
    }
}
