package io.pgqueue.internal.lifecycle;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.pgqueue.model.JobState;
import org.jspecify.annotations.Nullable;

/**
 * The job lifecycle: every way a job row changes state, with the states it leaves (none for rows that are
 * inserted), the states it may reach (finished states when the row leaves the job table; none when it goes
 * without a trace) and the totals it adds to. Each transition is carried out by one repository statement (or
 * one inside the caller's transaction), and that statement's counter deltas are generated from this table
 * by {@link Counters}; no statement writes a delta of its own. A new feature adds a constant here and a
 * repository method that uses it.
 *
 * <pre>
 * transition            from             to                          totals               triggered by
 * ENQUEUE               -                scheduled | ready           enqueued             send, sendBatch, tick, pgqueue.send()
 * PROMOTE               scheduled        ready                                            a claim of the queue, maintenance
 * CLAIM_LEASE           ready            running (attempts + 1)                           LEASE poller
 * CLAIM_DELETE          ready            completed                   completed            TRANSACTIONAL worker (commits with the handler)
 * COMPLETE              running          completed | cancelled       completed, cancelled LEASE acknowledgement (node + attempt match)
 * FAIL                  running          scheduled | ready | dead    failed, dead_lett.   LEASE handler failure (not cancel-requested)
 * FAIL_AFTER_ROLLBACK   ready            scheduled | ready | dead    failed, dead_lett.   TRANSACTIONAL handler failure (attempts + 1)
 * SNOOZE                running          scheduled | ready                                JobContext.snooze, LEASE (attempts - 1)
 * SNOOZE_AFTER_ROLLBACK ready            scheduled | ready                                JobContext.snooze, TRANSACTIONAL
 * CANCEL                scheduled|ready  cancelled                   cancelled            QueueAdmin.cancel
 * CANCEL_RUNNING        running          cancelled                   cancelled            failure, snooze, release or rescue of a
 *                                                                                         job whose cancellation was requested
 * RESCUE                running          ready | dead                failed, dead_lett.   lease expired or node gone
 * RELEASE               running          ready (attempts - 1)                             graceful shutdown
 * RETRY_DEAD            dead             ready (attempts = 0)                             admin
 * PURGE                 dead             -                                                admin
 * EXPIRE                dead             -                                                retention
 * </pre>
 * A statement of a transition that can reach several states returns the new {@code state} of each row; one
 * that can leave several returns each row's {@code from_state}.
 */
public enum Transition {

    ENQUEUE(EnumSet.noneOf(JobState.class), EnumSet.of(JobState.SCHEDULED, JobState.READY), Total.ENQUEUED),

    PROMOTE(EnumSet.of(JobState.SCHEDULED), EnumSet.of(JobState.READY)),

    CLAIM_LEASE(EnumSet.of(JobState.READY), EnumSet.of(JobState.RUNNING)),

    CLAIM_DELETE(EnumSet.of(JobState.READY), EnumSet.of(JobState.COMPLETED), Total.COMPLETED),

    COMPLETE(EnumSet.of(JobState.RUNNING), EnumSet.of(JobState.COMPLETED, JobState.CANCELLED), Total.COMPLETED,
            Total.CANCELLED),

    FAIL(EnumSet.of(JobState.RUNNING), EnumSet.of(JobState.SCHEDULED, JobState.READY, JobState.DEAD), Total.FAILED,
            Total.DEAD_LETTERED),

    FAIL_AFTER_ROLLBACK(EnumSet.of(JobState.READY), EnumSet.of(JobState.SCHEDULED, JobState.READY, JobState.DEAD),
            Total.FAILED, Total.DEAD_LETTERED),

    SNOOZE(EnumSet.of(JobState.RUNNING), EnumSet.of(JobState.SCHEDULED, JobState.READY)),

    SNOOZE_AFTER_ROLLBACK(EnumSet.of(JobState.READY), EnumSet.of(JobState.SCHEDULED, JobState.READY)),

    CANCEL(EnumSet.of(JobState.SCHEDULED, JobState.READY), EnumSet.of(JobState.CANCELLED), Total.CANCELLED),

    CANCEL_RUNNING(EnumSet.of(JobState.RUNNING), EnumSet.of(JobState.CANCELLED), Total.CANCELLED),

    RESCUE(EnumSet.of(JobState.RUNNING), EnumSet.of(JobState.READY, JobState.DEAD), Total.FAILED, Total.DEAD_LETTERED),

    RELEASE(EnumSet.of(JobState.RUNNING), EnumSet.of(JobState.READY)),

    RETRY_DEAD(EnumSet.of(JobState.DEAD), EnumSet.of(JobState.READY)),

    PURGE(EnumSet.of(JobState.DEAD), EnumSet.noneOf(JobState.class)),

    EXPIRE(EnumSet.of(JobState.DEAD), EnumSet.noneOf(JobState.class));

    /**
     * A monotonic total kept beside the state counts: it counts every row of a transition that declares
     * it, or only the rows that reach {@link #onlyInto} when that is set.
     */
    public enum Total {

        ENQUEUED(null), COMPLETED(JobState.COMPLETED), CANCELLED(JobState.CANCELLED), FAILED(null),
        DEAD_LETTERED(JobState.DEAD);

        private final @Nullable JobState onlyInto;

        Total(@Nullable JobState onlyInto) {
            this.onlyInto = onlyInto;
        }

        /** The counter column. */
        public String column() {
            return name().toLowerCase(Locale.ROOT);
        }

        @Nullable JobState onlyInto() {
            return onlyInto;
        }
    }

    private final Set<JobState> from;

    private final Set<JobState> to;

    private final List<Total> totals;

    Transition(EnumSet<JobState> from, EnumSet<JobState> to, Total... totals) {
        this.from = Set.copyOf(from);
        this.to = Set.copyOf(to);
        this.totals = List.of(totals);
    }

    /** The states the rows leave; empty for rows that are inserted. */
    public Set<JobState> from() {
        return from;
    }

    /** The states the rows may reach; only finished states (or none) when the rows leave the job table. */
    public Set<JobState> to() {
        return to;
    }

    /** Whether the rows leave the job table (the job finished, or was purged). */
    public boolean finishes() {
        return to.stream().allMatch(JobState::isFinished);
    }

    public List<Total> totals() {
        return totals;
    }

    /** The tag that starts this transition's statements, visible in pg_stat_activity and server logs. */
    public String tag() {
        return "/* pgqueue:" + name().toLowerCase(Locale.ROOT) + " */";
    }
}
