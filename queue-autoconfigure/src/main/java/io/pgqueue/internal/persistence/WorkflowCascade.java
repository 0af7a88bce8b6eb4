package io.pgqueue.internal.persistence;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The {@link Transition.Cascade#WORKFLOW} cascade, generated once and appended to every statement that can
 * finish, bury, cancel, retry or purge a workflow's node: in the same statement as the node's own change (so
 * in the same transaction as a LEASE acknowledgement, or in a TRANSACTIONAL handler's), its dependants are
 * released ({@link Transition#UNBLOCK}), cancelled ({@link Transition#CANCEL_DEPENDANTS}, transitively) or held
 * by the policy of each edge, the edges it consumed are deleted, finished nodes record how they ended (and
 * their output), the workflow's counts get their deltas, and the statement returns the queues of the jobs it
 * made ready, which {@code Wakeups} wakes once it committed (as for a send: this node's listeners at once, others
 * by a debounced NOTIFY, none by NOTIFY when notifications are off). Every CTE runs on the statement's changed
 * rows that have a workflow: for plain jobs it reads an empty set. Its steps include a recursive one, so a
 * statement that takes them is {@code WITH RECURSIVE} ({@link Steps}); its final select must carry {@link #WOKEN}.
 *
 * <p>Policies of an edge whose parent did not complete: {@code cancel} cancels the child; {@code run}
 * counts the edge as satisfied (the child runs and can see which parent failed); {@code hold} keeps the
 * child waiting while the parent is dead (retrying it and its success releases the child) and cancels it
 * once the parent is cancelled or purged. A cancelled child is a cancelled parent for its own children.
 * Children are locked in id order before they change, so that two statements releasing overlapping
 * children cannot deadlock.
 */
final class WorkflowCascade {

    /** The column a statement's final select must carry: the queues of the dependants it made ready. */
    static final String WOKEN = ", ARRAY(SELECT queue FROM wf_woken) AS wf_woken";

    /**
     * The column the final select of a statement that takes {@link #completed} carries besides {@link #WOKEN}: the
     * counts it left for children it could not lock ({@code job_dependency_done} ids), to fold once it committed.
     */
    static final String DEPOSITED = ", ARRAY(SELECT id FROM wf_deposited) AS wf_deposits";

    /**
     * A child with more parents pending than this beyond the ones a completion finished of it is not locked by
     * it at all: its count is left to be folded, many parents' at a time, so that a large fan-in's row is updated
     * once per fold rather than once per parent; its last parents lock it and release it in their own transaction.
     */
    static final int FAR_FROM_RELEASE = 64;

    private final Counters counters;

    private final JdbcHistoryRepository history;

    private static final FairnessCascade FAIRNESS = new FairnessCascade();

    WorkflowCascade(Counters counters, JdbcHistoryRepository history) {
        this.counters = counters;
        this.history = history;
    }

    /**
     * The cascade of a transition's statement, whose CTE {@code changed} returns {@code id}, {@code workflow_id}
     * and, where the transition leaves or reaches several states, {@code from_state} or {@code state}.
     *
     * @param cause why rows that leave the job table without a finished state (purged, expired) ended, for
     * their nodes; null for the other transitions
     */
    Steps steps(Transition transition, String changed, @Nullable String cause) {
        String from = (transition.from().size() == 1) ? Transition.literal(transition.from().iterator().next())
                : "from_state";
        String to = transition.to().isEmpty() ? "'cancelled'"
                : (transition.to().size() == 1) ? Transition.literal(transition.to().iterator().next()) : "state";
        return steps(changed, from, to, cause);
    }

    /**
     * The cascade of nodes that completed — the LEASE acknowledgement's workflow variant (whose cancel-requested
     * jobs are left to {@link Transition#CANCEL_RUNNING}), or a TRANSACTIONAL handler's success at the end of its
     * transaction — with their outputs bound as {@code :ids} and {@code :outputs}. A completed parent satisfies
     * every edge, whatever its policy, so none of the cancelling half is needed: a statement a third the size,
     * which matters on this hot path (PostgreSQL starts and ends every node of a plan on each execution).
     *
     * <p>It never waits for a child's row: a fan-in's parents finishing together would each hold it from here to
     * their commit, one after the other. A child it can lock at once (SKIP LOCKED) is counted down now, with the
     * counts other parents left for it ({@link #folded}); for a child another transaction holds, or one still far
     * from its release ({@link #FAR_FROM_RELEASE}), the count is left in {@code job_dependency_done} (returned as
     * {@link #DEPOSITED}), folded right after this commit by {@link #foldStatement}, by the next parent that locks
     * the child, or by maintenance.
     */
    Steps completed(String changed) {
        return Steps.step("wf_moved", "SELECT id, workflow_id FROM %s WHERE workflow_id IS NOT NULL".formatted(changed))
            .then("wf_consumed", """
                DELETE FROM {schema}.job_dependency d WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_moved))
                RETURNING d.child_id""")
            .then("wf_parents_done", "SELECT child_id, count(*) AS n FROM wf_consumed GROUP BY child_id")
            // each child is looked up and locked by its primary key from its own count (a lateral subquery that
            // locks cannot be merged into a join), and every later step takes the locked children with their
            // counts or through a hashed NOT IN: no step joins two of these sets, which a plan made from a drained
            // table's statistics (a child or two) runs as a nested loop comparing each child with every other
            .then("wf_locked", """
                SELECT l.id, p.n FROM wf_parents_done p
                CROSS JOIN LATERAL (SELECT j.id FROM {schema}.job j
                                    WHERE j.id = p.child_id AND %s AND j.pending_parents <= p.n + %d
                                    FOR UPDATE SKIP LOCKED) AS l""".formatted(Transition.UNBLOCK.guard("j"),
                FAR_FROM_RELEASE))
            .then("wf_deposited", """
                INSERT INTO {schema}.job_dependency_done (child_id, satisfied)
                SELECT child_id, n FROM wf_parents_done WHERE child_id NOT IN (SELECT id FROM wf_locked)
                RETURNING id""")
            .then(folded("SELECT id FROM wf_locked", """
                SELECT id, n FROM wf_locked
                UNION ALL
                """))
            .then(released())
            .then("wf_nodes", """
                UPDATE {schema}.workflow_node n SET state = 'completed', finished_at = now(), output = o.output::jsonb
                FROM wf_moved m LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = m.id
                WHERE n.job_id = m.id""")
            .then(Counters.Aggregate.WORKFLOW.delta("wf_counted",
                    new Counters.Move("SELECT workflow_id FROM wf_moved", "active", "completed"),
                    new Counters.Move("SELECT workflow_id FROM wf_released WHERE state <> 'waiting'", "waiting", "active")))
            .then(WOKEN_QUEUES);
    }

    /**
     * The counts left in {@code job_dependency_done} for the children {@code children} selects (locked by the
     * statement), taken out and added to what {@code ownCounts} (rows of child_id and n, followed by UNION ALL, or
     * empty) satisfied, as {@code wf_satisfied}. A count committed after the statement's snapshot is not seen
     * and stays for a later fold; one another fold took first is skipped by its DELETE.
     */
    private static Steps folded(String children, String ownCounts) {
        // the EXISTS is decided once, before any scan: a statement that locked no child (a leaf node's completion)
        // does not read the table at all, whatever plan a connection cached while the table was small
        return Steps.step("wf_folded", """
                DELETE FROM {schema}.job_dependency_done d
                WHERE EXISTS (%1$s) AND d.child_id = ANY(ARRAY(%1$s))
                RETURNING d.child_id, d.satisfied""".formatted(children))
            .then("wf_satisfied", """
                SELECT child_id, sum(n)::int AS n
                FROM (%sSELECT child_id, satisfied FROM wf_folded) AS c (child_id, n)
                GROUP BY child_id""".formatted(ownCounts));
    }

    /**
     * Folds the counts left in {@code job_dependency_done} (those of {@code :deposits}, or with {@code :any} up to
     * a thousand of any, oldest first) into their children's pending parents, releasing the children that reach
     * zero ({@link Transition#UNBLOCK}): after the commit of the statement that left them, and in maintenance's
     * pass for counts whose fold did not run (the node stopped or crashed in between). Children are locked in id
     * order, waiting for the transactions that hold them, and only their locked children's counts are taken (a
     * count taken before its child's lock would deadlock with a fold that holds the child). Counts of a child that
     * no longer waits (cancelled meanwhile) are removed, skipping any another statement holds.
     */
    String foldStatement() {
        return Steps.step("wf_children", """
                SELECT DISTINCT child_id FROM {schema}.job_dependency_done
                WHERE id = ANY(:deposits::bigint[])
                   OR id = ANY(ARRAY(SELECT id FROM {schema}.job_dependency_done WHERE :any::boolean ORDER BY id LIMIT 1000))""")
            .then("wf_locked", """
                SELECT j.id FROM {schema}.job j
                WHERE j.id = ANY(ARRAY(SELECT child_id FROM wf_children)) AND %s
                ORDER BY j.id FOR UPDATE""".formatted(Transition.UNBLOCK.guard("j")))
            .then("wf_stray", """
                DELETE FROM {schema}.job_dependency_done d
                WHERE d.id = ANY(ARRAY(SELECT s.id FROM {schema}.job_dependency_done s
                                       WHERE s.child_id = ANY(ARRAY(SELECT child_id FROM wf_children))
                                         AND s.child_id NOT IN (SELECT id FROM wf_locked)
                                       FOR UPDATE SKIP LOCKED))
                RETURNING d.id""")
            .then(folded("SELECT id FROM wf_locked", ""))
            .then(released())
            .then(Counters.Aggregate.WORKFLOW.delta("wf_counted",
                    new Counters.Move("SELECT workflow_id FROM wf_released WHERE state <> 'waiting'", "waiting", "active")))
            .then(WOKEN_QUEUES)
            .select("SELECT (SELECT count(*) FROM wf_folded) + (SELECT count(*) FROM wf_stray)" + WOKEN);
    }

    /** The queues of the jobs the cascade made ready, for the statement's final select ({@link #WOKEN}). */
    private static final Steps WOKEN_QUEUES = Steps.step("wf_woken",
            "SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'");

    /**
     * {@link Transition#UNBLOCK} of the locked children by the edges they had satisfied, with its deltas. Every
     * child of {@code wf_satisfied} is one the caller's {@code wf_locked} holds under the transition's guard.
     *
     * <p>The update joins nothing: the counts come as two arrays ordered by child id, the jobs are found by their
     * primary key from the ids, and each job's count by a binary search of the ids ({@code width_bucket} of an
     * id in a sorted array of distinct ids is its position). A join of the job table with the counts was planned
     * from statistics (a job table emptied by its last drain, a row or two waiting), and the plan then compared
     * every waiting child with every count: 10,000 × 10,000 for one fan-out, 15–20 s inside the parent's
     * commit, which a statement timeout cancelled on every attempt. For the same reason the transition's guard
     * ({@code state = 'waiting'}) is checked where the children are locked and not again here: estimated at a
     * row or two, it made the scan of waiting jobs the way in, each compared with every id.
     *
     * <p>A child is due against the time of this statement, not of its transaction: a TRANSACTIONAL claim's
     * transaction can have begun before the child's workflow was committed (its start is taken when its first
     * statement arrives, the claim's snapshot only when that statement runs), and against that earlier clock a
     * child due at its submission looked scheduled, to wait for the next promotion.
     */
    private Steps released() {
        return Steps.step("wf_satisfied_sorted", """
                SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
                FROM wf_satisfied""")
            .then("wf_released", """
                %s
                UPDATE {schema}.job j
                SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
                    state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                                 WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
                FROM wf_satisfied_sorted s
                -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
                WHERE EXISTS (SELECT FROM wf_satisfied)
                  AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
                RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key""".formatted(Transition.UNBLOCK.tag()))
            .then(counters.delta(Transition.UNBLOCK, "wf_released", Counters.Rows.MANY))
            .then(FAIRNESS.activate("wf_released", "wf_", true));
    }

    private Steps steps(String changed, String from, String to, @Nullable String cause) {
        return Steps.step("wf_moved", """
                SELECT id, workflow_id, %s AS was, %s AS now_is
                FROM %s WHERE workflow_id IS NOT NULL""".formatted(standing(from), standing(to), changed))
            .then("wf_ended", """
                SELECT id, now_is AS outcome FROM wf_moved
                WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is""")
            // each node's children looked up by its own row (OFFSET 0 keeps the lateral subquery from being merged
            // into a join): a join of the edges with the nodes, planned for a row or two of each, ran as a nested
            // loop comparing every doomed child with every edge. Each doomed child carries how its root ended, so
            // that no later step joins it with wf_ended
            .then(Steps.recursiveStep("wf_doomed (id, root, parent, outcome)", """
                SELECT d.child_id, e.id, e.id, e.outcome
                FROM wf_ended e
                CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM {schema}.job_dependency d
                                    WHERE d.parent_id = e.id OFFSET 0) AS d
                WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
                  AND d.child_id NOT IN (SELECT id FROM wf_moved)
                UNION
                SELECT d.child_id, x.root, x.id, x.outcome
                FROM wf_doomed x
                CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM {schema}.job_dependency d
                                    WHERE d.parent_id = x.id OFFSET 0) AS d
                WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)"""))
            .then("wf_sources", "SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed")
            // the sources as two arrays ordered by id (their ids are distinct: a doomed child is never a moved
            // row), made once: an edge finds its parent's outcome by a binary search, not by a join with the
            // sources, which a plan made for a row or two of each (a drained table's statistics) ran as a nested
            // loop comparing every edge with every source, 10,000 x 10,000 for a dead root's fan-out (see released)
            .then(Steps.onceStep("wf_sources_sorted", """
                SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources"""))
            .then("wf_consumed", """
                DELETE FROM {schema}.job_dependency d USING wf_sources_sorted s
                WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
                  AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
                RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome""")
            .then("wf_orphaned", """
                DELETE FROM {schema}.job_dependency d
                WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
                  AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
                RETURNING d.child_id""")
            .then("wf_satisfying", """
                SELECT child_id, count(*) AS n FROM wf_consumed
                WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
                GROUP BY child_id""")
            // the children to release (with their counts) and to cancel, locked in id order, each by its primary
            // key from its own row (see completed)
            .then("wf_locked", """
                SELECT l.id, c.n
                FROM (SELECT child_id, n FROM wf_satisfying
                      UNION ALL
                      SELECT DISTINCT id, NULL::bigint FROM wf_doomed
                      ORDER BY 1) AS c (child_id, n)
                CROSS JOIN LATERAL (SELECT j.id FROM {schema}.job j WHERE j.id = c.child_id AND %s
                                    FOR UPDATE) AS l""".formatted(Transition.CANCEL_DEPENDANTS.guard("j")))
            .then("wf_satisfied", "SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL")
            .then("wf_cancelled", """
                %s
                DELETE FROM {schema}.job j
                WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND %s
                RETURNING %s, 'cancelled' AS state""".formatted(Transition.CANCEL_DEPENDANTS.tag(),
                Transition.CANCEL_DEPENDANTS.guard("j"), JobColumns.FINISHED_COLUMNS))
            .then(history.archive("wf_cancelled", false, "wf_archived"))
            .then(counters.delta(Transition.CANCEL_DEPENDANTS, "wf_cancelled", Counters.Rows.MANY))
            .then(released())
            .then(Steps.onceStep("wf_cancelled_sorted", "SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled"))
            .then("wf_nodes", """
                UPDATE {schema}.workflow_node n
                SET state = f.state, finished_at = now(), error = f.error
                FROM (SELECT m.id, m.now_is AS state, %s AS error
                      FROM wf_moved m
                      WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
                      UNION ALL
                      (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                             -- the node's own parent; below the first level, the node whose end started it
                             'parent ' || coalesce(p.name, x.parent::text)
                             || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                                     || coalesce(r.name, x.root::text) END
                             || ' ended ' || x.outcome
                      -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
                      -- of the two sets: see wf_sources_sorted)
                      FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
                           LEFT JOIN {schema}.workflow_node p ON p.job_id = x.parent
                           LEFT JOIN {schema}.workflow_node r ON r.job_id = x.root
                      WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
                      ORDER BY x.id, (x.parent = x.root) DESC)) AS f
                WHERE n.job_id = f.id""".formatted(literal(cause)))
            .then(Counters.Aggregate.WORKFLOW.delta("wf_counted", """
                SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
                          UNION ALL
                          SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
                          UNION ALL
                          SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting'"""))
            .then(WOKEN_QUEUES);
    }

    /** Why nodes ended, as a literal: one of the causes written in this package, never input. */
    private static String literal(@Nullable String cause) {
        if (cause == null) {
            return "NULL::text";
        }
        if (cause.indexOf('\'') >= 0) {
            throw new IllegalArgumentException("A cause with a quote: " + cause);
        }
        return "'" + cause + "'";
    }

    /** A state's standing in its workflow's counts: scheduled, ready and running are all 'active'. */
    private static String standing(String state) {
        if (state.startsWith("'")) {
            // a state the transition names: its standing is known here, not left to the server to compare constants
            return ACTIVE.contains(state) ? "'active'" : state;
        }
        return "CASE WHEN " + state + " IN (" + String.join(", ", ACTIVE) + ") THEN 'active' ELSE " + state + " END";
    }

    /** The states counted as 'active' in a workflow, as SQL literals. */
    private static final java.util.List<String> ACTIVE = java.util.List.of("'scheduled'", "'ready'", "'running'");

}
