package io.pgqueue.model;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * A queue's counts, from the counters (never from {@code COUNT(*)}).
 *
 * @param queue queue name
 * @param jobs jobs per state (every state present)
 * @param enqueued jobs ever sent (monotonic)
 * @param completed jobs ever finished successfully (monotonic)
 * @param failed failed attempts ever (monotonic)
 * @param deadLettered jobs ever sent dead (monotonic)
 * @param cancelled jobs ever cancelled (monotonic)
 */
public record QueueCounts(String queue, Map<JobState, Long> jobs, long enqueued, long completed, long failed,
        long deadLettered, long cancelled) {

    public QueueCounts {
        EnumMap<JobState, Long> all = new EnumMap<>(JobState.class);
        for (JobState state : JobState.live()) {
            all.put(state, jobs.getOrDefault(state, 0L));
        }
        jobs = Collections.unmodifiableMap(all);
    }

    /** Jobs in the given state. */
    public long count(JobState state) {
        return jobs.get(state);
    }

    /** Jobs waiting for their run-at (delays, backoff). */
    public long scheduled() {
        return count(JobState.SCHEDULED);
    }

    /** Jobs runnable now. */
    public long ready() {
        return count(JobState.READY);
    }

    /** Jobs claimed and not finished. */
    public long running() {
        return count(JobState.RUNNING);
    }

    /** Jobs out of attempts or not processable. */
    public long dead() {
        return count(JobState.DEAD);
    }
}
