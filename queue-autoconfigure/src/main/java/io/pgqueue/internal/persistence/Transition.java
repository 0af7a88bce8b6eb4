package io.pgqueue.internal.persistence;

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
 * SUBMIT                -                waiting | scheduled | ready enqueued             a workflow's submission, a node's addition
 * UNBLOCK               waiting          waiting | ready | scheduled                      a parent finished (pending_parents - n), or
 *                                                                                         its count left for a held child was folded
 * CANCEL_DEPENDANTS     waiting          cancelled                   cancelled            a parent ended dead or cancelled
 * PROMOTE               scheduled        ready                                            a claim of the queue, maintenance
 * CLAIM_LEASE           ready            running (attempts + 1)                           LEASE poller
 * CLAIM_DELETE          ready            completed                   completed            TRANSACTIONAL worker (commits with the handler)
 * CLAIM_RESTORE         completed        ready                       - completed          TRANSACTIONAL failure or snooze: undoes
 *                                                                                         CLAIM_DELETE in its own transaction
 * COMPLETE              running          completed | cancelled       completed, cancelled LEASE acknowledgement (node + attempt match)
 * FAIL                  running          scheduled | ready | dead    failed, dead_lett.   LEASE handler failure (not cancel-requested)
 * FAIL_AFTER_ROLLBACK   ready            scheduled | ready | dead    failed, dead_lett.   TRANSACTIONAL handler failure (attempts + 1)
 * SNOOZE                running          scheduled | ready                                JobContext.snooze, LEASE (attempts - 1)
 * SNOOZE_AFTER_ROLLBACK ready            scheduled | ready                                JobContext.snooze, TRANSACTIONAL
 * CANCEL                waiting|sch.|rdy cancelled                   cancelled            QueueAdmin.cancel
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

    ENQUEUE(none(), of(JobState.SCHEDULED, JobState.READY), List.of(Total.ENQUEUED)),

    SUBMIT(none(), of(JobState.WAITING, JobState.SCHEDULED, JobState.READY), List.of(Total.ENQUEUED), List.of(),
            List.of(Cascade.WORKFLOW_GRAPH)),

    UNBLOCK(of(JobState.WAITING), of(JobState.WAITING, JobState.READY, JobState.SCHEDULED), List.of(),
            List.of(Guard.WAITING), List.of()),

    CANCEL_DEPENDANTS(of(JobState.WAITING), of(JobState.CANCELLED), List.of(Total.CANCELLED), List.of(Guard.WAITING),
            List.of(Cascade.HISTORY)),

    PROMOTE(of(JobState.SCHEDULED), of(JobState.READY), List.of()),

    CLAIM_LEASE(of(JobState.READY), of(JobState.RUNNING), List.of(), List.of(Guard.NODE_REGISTERED), List.of()),

    CLAIM_DELETE(of(JobState.READY), of(JobState.COMPLETED), List.of(Total.COMPLETED), List.of(),
            List.of(Cascade.HISTORY)),

    /**
     * The claim's rows put back, exactly as it deleted them, after the rollback to the savepoint set behind it:
     * only ever in the claim's own transaction, so no other transaction saw them completed, and its deltas are
     * {@link #CLAIM_DELETE}'s taken back.
     */
    CLAIM_RESTORE(CLAIM_DELETE, List.of(Cascade.HISTORY_REMOVAL)),

    COMPLETE(of(JobState.RUNNING), of(JobState.COMPLETED, JobState.CANCELLED), List.of(Total.COMPLETED, Total.CANCELLED),
            List.of(Guard.OWNED_ATTEMPTS), List.of(Cascade.HISTORY)),

    FAIL(of(JobState.RUNNING), of(JobState.SCHEDULED, JobState.READY, JobState.DEAD),
            List.of(Total.FAILED, Total.DEAD_LETTERED), List.of(Guard.OWNED_ATTEMPT, Guard.NOT_CANCEL_REQUESTED),
            List.of()),

    FAIL_AFTER_ROLLBACK(of(JobState.READY), of(JobState.SCHEDULED, JobState.READY, JobState.DEAD),
            List.of(Total.FAILED, Total.DEAD_LETTERED), List.of(Guard.AFTER_ROLLBACK), List.of()),

    SNOOZE(of(JobState.RUNNING), of(JobState.SCHEDULED, JobState.READY), List.of(),
            List.of(Guard.OWNED_ATTEMPT, Guard.NOT_CANCEL_REQUESTED), List.of()),

    SNOOZE_AFTER_ROLLBACK(of(JobState.READY), of(JobState.SCHEDULED, JobState.READY), List.of(),
            List.of(Guard.AFTER_ROLLBACK), List.of()),

    CANCEL(of(JobState.WAITING, JobState.SCHEDULED, JobState.READY), of(JobState.CANCELLED), List.of(Total.CANCELLED),
            List.of(), List.of(Cascade.HISTORY, Cascade.DEDUP_WINDOW_RELEASE, Cascade.WORKFLOW,
                    Cascade.BATCH)),

    CANCEL_RUNNING(of(JobState.RUNNING), of(JobState.CANCELLED), List.of(Total.CANCELLED),
            List.of(Guard.CANCEL_REQUESTED), List.of(Cascade.HISTORY)),

    RESCUE(of(JobState.RUNNING), of(JobState.READY, JobState.DEAD), List.of(Total.FAILED, Total.DEAD_LETTERED),
            List.of(Guard.NOT_CANCEL_REQUESTED), List.of(Cascade.WORKFLOW, Cascade.BATCH)),

    RELEASE(of(JobState.RUNNING), of(JobState.READY), List.of(), List.of(Guard.OWNED, Guard.NOT_CANCEL_REQUESTED),
            List.of()),

    RETRY_DEAD(of(JobState.DEAD), of(JobState.READY), List.of(), List.of(),
            List.of(Cascade.WORKFLOW, Cascade.BATCH, Cascade.FAIRNESS)),

    PURGE(of(JobState.DEAD), none(), List.of(), List.of(), List.of(Cascade.WORKFLOW)),

    EXPIRE(of(JobState.DEAD), none(), List.of(), List.of(), List.of(Cascade.WORKFLOW));

    /**
     * A condition a transition's statement puts on the rows it changes: rows that fail it are left alone, so
     * that, e.g., the late acknowledgement of a job that was rescued and runs elsewhere changes nothing. Each
     * guard's SQL is written here once; the statements take it from here and {@code TransitionTableTests}
     * checks that every statement of a transition carries its guards.
     */
    public enum Guard {

        /** Running under this node in the attempt the caller ran. */
        OWNED_ATTEMPT("%1$sattempts = :attempt AND %1$sstate = 'running' AND %1$slocked_by = :node"),

        /**
         * Owned by this node in the attempts the caller ran, given as pairs {@code :ids}, {@code :attempts} (no
         * {@code state = 'running'}: only running jobs have an owner, and that predicate would invite the partial
         * lease index).
         */
        OWNED_ATTEMPTS("%1$slocked_by = :node AND ((%1$sid, %1$sattempts) IN (SELECT * FROM unnest(:ids::bigint[], "
                + ":attempts::int[]))) IS TRUE"),

        /** Running under this node, in any attempt. */
        OWNED("%1$slocked_by = :node AND %1$sstate = 'running'"),

        /** Ready again after the TRANSACTIONAL rollback to the claim's savepoint, the attempt not yet counted. */
        AFTER_ROLLBACK("%1$sattempts = :attempt - 1 AND %1$sstate = 'ready' AND %1$slocked_by IS NULL"),

        /** Not asked to cancel: the {@link #CANCEL_RUNNING} statement that follows finishes such a job instead. */
        NOT_CANCEL_REQUESTED("NOT %1$scancel_requested"),

        /** Asked to cancel while it ran. */
        CANCEL_REQUESTED("%1$scancel_requested"),

        /** A workflow node waiting for its parents. */
        WAITING("%1$sstate = 'waiting'"),

        /** The claiming node is registered: a node whose row was removed (judged gone) takes nothing more. */
        NODE_REGISTERED("EXISTS (SELECT 1 FROM {schema}.node n WHERE n.id = :node)");

        /** The condition, its job table's columns written after a place for their table's alias. */
        private final String sql;

        Guard(String sql) {
            this.sql = sql;
        }

        /** The condition on the job table's columns unqualified. */
        public String sql() {
            return sql.formatted("");
        }

        /** The condition with the job table's columns qualified by {@code alias}. */
        public String sql(String alias) {
            return sql.formatted(alias + ".");
        }
    }

    /**
     * An effect on other rows or aggregates that a transition's statement has in the same statement, beside its
     * counter deltas (which every transition has): what must not be forgotten by a new statement of the
     * transition, and what the next features add to (releasing a workflow's dependants, counting a batch).
     */
    public enum Cascade {

        /** The finished rows are copied to {@code job_history} when history is on. */
        HISTORY,

        /** The history rows that the undone transition copied in this transaction are removed again. */
        HISTORY_REMOVAL,

        /** The dedup windows of the finished rows' keys are released. */
        DEDUP_WINDOW_RELEASE,

        /**
         * The workflow nodes among the rows are counted per workflow; those that finish or die release, cancel
         * or hold their dependants by the edges' policies ({@link #UNBLOCK}, {@link #CANCEL_DEPENDANTS},
         * transitively), and finished ones record how (and their output). Declared by the transitions all of
         * whose statements carry it; {@link #COMPLETE}, {@link #CLAIM_DELETE}, {@link #FAIL},
         * {@link #FAIL_AFTER_ROLLBACK} and {@link #CANCEL_RUNNING} have it in the variants the engine uses for
         * workflow nodes only (it knows a node from its claim): plain jobs' acknowledgements and failures do not
         * pay for it. {@code CounterConsistencyTests} drives those variants.
         */
        WORKFLOW,

        /** The workflow's node rows and the dependency edges between the inserted jobs are written. */
        WORKFLOW_GRAPH,

        /**
         * The batch members among the rows are counted per batch and in their batch's shards; a shard that reaches
         * zero or leaves it updates the batch row, and a callback the change decides is fired (its job inserted
         * by {@link #ENQUEUE} in the same statement), exactly once. Declared by the transitions all of whose
         * statements carry it; the members' variants of {@link #ENQUEUE} (an addition to an open batch: counted
         * only), {@link #COMPLETE}, {@link #CLAIM_DELETE} (the end of the handler), {@link #FAIL},
         * {@link #FAIL_AFTER_ROLLBACK} and {@link #CANCEL_RUNNING} carry it beside {@link #WORKFLOW}.
         */
        BATCH,

        /**
         * The fairness keys of the rows made ready are held ({@code FOR KEY SHARE}) when active, else activated:
         * a key is never deactivated under a job being made ready ({@link FairnessCascade}). Declared by the
         * transitions all of whose statements carry it; the keyed variants of {@link #ENQUEUE} and
         * {@link #SUBMIT}, the fair queues' and maintenance's {@link #PROMOTE} and every {@link #UNBLOCK} carry it
         * too; the fair variants of {@link #CLAIM_LEASE} and {@link #CLAIM_DELETE} charge the keys they take from.
         */
        FAIRNESS
    }

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

    private final List<Guard> guards;

    private final List<Cascade> cascades;

    private final @Nullable Transition undoes;

    /** A transition that undoes {@code undone} within the transaction that made it: from its targets back. */
    Transition(Transition undone, List<Cascade> cascades) {
        this(undone.to, undone.from, undone.totals, List.of(), cascades, undone);
    }

    Transition(Set<JobState> from, Set<JobState> to, List<Total> totals) {
        this(from, to, totals, List.of(), List.of());
    }

    Transition(Set<JobState> from, Set<JobState> to, List<Total> totals, List<Guard> guards, List<Cascade> cascades) {
        this(from, to, totals, guards, cascades, null);
    }

    Transition(Set<JobState> from, Set<JobState> to, List<Total> totals, List<Guard> guards, List<Cascade> cascades,
            @Nullable Transition undoes) {
        this.undoes = undoes;
        this.from = Set.copyOf(from);
        this.to = Set.copyOf(to);
        this.totals = totals;
        this.guards = guards;
        this.cascades = cascades;
    }

    private static Set<JobState> of(JobState... states) {
        return Set.of(states);
    }

    private static Set<JobState> none() {
        return Set.of();
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

    /** The totals it adds to; an undoing transition's are those it takes back from. */
    public List<Total> totals() {
        return totals;
    }

    /**
     * The transition this one undoes within the transaction that made it (whose rows therefore no other
     * transaction ever saw in their new state), or null: its deltas are that transition's, negated.
     */
    public @Nullable Transition undoes() {
        return undoes;
    }

    /** The conditions every statement of this transition puts on the rows it changes. */
    public List<Guard> guards() {
        return guards;
    }

    /** The guards as one condition, the job table's columns qualified by {@code alias} (empty: unqualified). */
    public String guard(String alias) {
        return String.join(" AND ", guards.stream().map((g) -> alias.isEmpty() ? g.sql() : g.sql(alias)).toList());
    }

    /** The effects every statement of this transition has beside its counter deltas. */
    public List<Cascade> cascades() {
        return cascades;
    }

    /** A state as an SQL literal. */
    static String literal(JobState state) {
        return "'" + state.value() + "'";
    }

    /** The tag that starts this transition's statements, visible in pg_stat_activity and server logs. */
    public String tag() {
        return "/* pgqueue:" + name().toLowerCase(Locale.ROOT) + " */";
    }
}
