package io.pgqueue.internal.lifecycle;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.pgqueue.JobState;
import org.jspecify.annotations.Nullable;

/**
 * The job lifecycle: every way a job row changes state, with the state it leaves, the states it may reach
 * (none when the row leaves the job table: the job finished) and the totals it adds to. Each transition is
 * carried out by one repository statement (or one inside the caller's transaction), and that statement's
 * counter deltas are generated from this table by {@link Counters}; no statement writes a delta of its
 * own. A new feature adds a constant here and a repository method that uses it.
 *
 * <pre>
 * transition          from       to                       totals              triggered by
 * ENQUEUE             -          scheduled | ready        enqueued            send, sendBatch, recurring tick
 * PROMOTE             scheduled  ready                                        a claim of the queue, maintenance
 * CLAIM_LEASE         ready      running (attempts + 1)                       LEASE poller
 * CLAIM_DELETE        ready      finished                 completed           TRANSACTIONAL worker (commits with the handler)
 * COMPLETE            running    finished                 completed           LEASE acknowledgement (node + attempt match)
 * FAIL                running    scheduled | ready | dead failed, dead_lett.  LEASE handler failure
 * FAIL_AFTER_ROLLBACK ready      scheduled | ready | dead failed, dead_lett.  TRANSACTIONAL handler failure (attempts + 1)
 * RESCUE              running    ready | dead             failed, dead_lett.  lease expired or node gone
 * RELEASE             running    ready (attempts - 1)                         graceful shutdown
 * RETRY_DEAD          dead       ready (attempts = 0)                         admin
 * PURGE               dead       finished                                     admin
 * EXPIRE              dead       finished                                     retention
 * </pre>
 */
public enum Transition {

    ENQUEUE(null, EnumSet.of(JobState.SCHEDULED, JobState.READY), Total.ENQUEUED),

    PROMOTE(JobState.SCHEDULED, EnumSet.of(JobState.READY)),

    CLAIM_LEASE(JobState.READY, EnumSet.of(JobState.RUNNING)),

    CLAIM_DELETE(JobState.READY, EnumSet.noneOf(JobState.class), Total.COMPLETED),

    COMPLETE(JobState.RUNNING, EnumSet.noneOf(JobState.class), Total.COMPLETED),

    FAIL(JobState.RUNNING, EnumSet.of(JobState.SCHEDULED, JobState.READY, JobState.DEAD), Total.FAILED,
            Total.DEAD_LETTERED),

    FAIL_AFTER_ROLLBACK(JobState.READY, EnumSet.of(JobState.SCHEDULED, JobState.READY, JobState.DEAD), Total.FAILED,
            Total.DEAD_LETTERED),

    RESCUE(JobState.RUNNING, EnumSet.of(JobState.READY, JobState.DEAD), Total.FAILED, Total.DEAD_LETTERED),

    RELEASE(JobState.RUNNING, EnumSet.of(JobState.READY)),

    RETRY_DEAD(JobState.DEAD, EnumSet.of(JobState.READY)),

    PURGE(JobState.DEAD, EnumSet.noneOf(JobState.class)),

    EXPIRE(JobState.DEAD, EnumSet.noneOf(JobState.class));

    /**
     * A monotonic total kept beside the state counts: it counts every row of a transition that declares
     * it, or only the rows that reach {@link #onlyInto} when that is set.
     */
    public enum Total {

        ENQUEUED(null), COMPLETED(null), FAILED(null), DEAD_LETTERED(JobState.DEAD);

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

    private final @Nullable JobState from;

    private final Set<JobState> to;

    private final List<Total> totals;

    Transition(@Nullable JobState from, EnumSet<JobState> to, Total... totals) {
        this.from = from;
        this.to = Set.copyOf(to);
        this.totals = List.of(totals);
    }

    /** The state the rows leave, or null for rows that are inserted. */
    public @Nullable JobState from() {
        return from;
    }

    /** The states the rows may reach; empty when the rows leave the job table. */
    public Set<JobState> to() {
        return to;
    }

    /** Whether the rows leave the job table (the job finished). */
    public boolean finishes() {
        return to.isEmpty();
    }

    public List<Total> totals() {
        return totals;
    }

    /** The tag that starts this transition's statements, visible in pg_stat_activity and server logs. */
    public String tag() {
        return "/* pgqueue:" + name().toLowerCase(Locale.ROOT) + " */";
    }
}
