package io.pgqueue.model;

import java.util.List;
import java.util.Locale;

/**
 * Where a job is in its life. A job is in one of the {@link #live()} states while its row is in the job
 * table; a job that finished is {@link #COMPLETED} or {@link #CANCELLED} (kept in the history table when
 * history is on), or gone (purged). The full diagram of transitions is in docs/architecture.md.
 */
public enum JobState {

    /** A workflow node waiting for its parents: outside the claim index until the last of them finishes. */
    WAITING,

    /** Waiting for its run-at: a delay, or the backoff before a retry. */
    SCHEDULED,

    /** Runnable now: the next claim of its queue may take it. */
    READY,

    /** Claimed by a node and being handled (LEASE delivery; TRANSACTIONAL jobs are held by a transaction). */
    RUNNING,

    /** Out of attempts or not processable; kept with its last error until retried or purged. */
    DEAD,

    /** Finished: its handler succeeded. */
    COMPLETED,

    /** Finished: cancelled before it ran, or while it ran (whatever its handler then did). */
    CANCELLED;

    private static final List<JobState> ALL = List.of(values());

    private static final List<JobState> LIVE = List.of(WAITING, SCHEDULED, READY, RUNNING, DEAD);

    private final String sqlValue = name().toLowerCase(Locale.ROOT);

    /** Every state, in the order they are shown (the order of a job's life). */
    public static List<JobState> all() {
        return ALL;
    }

    /** The states of jobs that have not finished: the ones counted per queue. */
    public static List<JobState> live() {
        return LIVE;
    }

    /** Whether the job has finished (it left the job table). */
    public boolean isFinished() {
        return !LIVE.contains(this);
    }

    /** The value in the {@code state} column, the {@code state} tag of metrics and the endpoint's keys. */
    public String value() {
        return sqlValue;
    }

    /** The state whose {@link #value()} this is. */
    public static JobState of(String value) {
        for (JobState state : ALL) {
            if (state.sqlValue.equals(value)) {
                return state;
            }
        }
        throw new IllegalArgumentException("Unknown job state '" + value + "': use one of waiting, scheduled, "
                + "ready, running, dead, completed, cancelled");
    }
}
