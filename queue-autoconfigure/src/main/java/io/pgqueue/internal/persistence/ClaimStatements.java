package io.pgqueue.internal.persistence;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The statements that claim jobs ({@link Transition#CLAIM_LEASE}, {@link Transition#CLAIM_DELETE}) and what a
 * claim needs around it: the promotion of due jobs, the fair claims' keys, the throttle's lock, count and rate
 * window. Plain claims carry their limit as a constant, a statement per size made on first use.
 */
final class ClaimStatements {

    /** Due scheduled jobs a claim promotes before it claims. */
    static final int PROMOTE_PER_CLAIM = 1000;

    /**
     * The ready jobs a claim takes, in claim order, unless the queue is paused cluster-wide. A job with a
     * group key is taken only when no job of its group is running and no earlier one is pending (a failed one
     * waiting for its retry counts as pending when failures block the group).
     */
    static final String READY = """
            SELECT id FROM {schema}.job j
            WHERE j.queue = :queue AND j.state = 'ready'
              AND NOT EXISTS (SELECT 1 FROM {schema}.queue_state s WHERE s.queue = :queue AND s.paused)
              AND """ + FairnessCascade.GROUP_TURN;

    /**
     * The ready jobs a claim takes: {@link #READY} in claim order, at most {@code limit} (a bind parameter, or a
     * constant written in: see {@link #claimLeasedBySize}).
     */
    private static String readyIds(String limit) {
        return READY + """

                ORDER BY j.priority DESC, j.run_at, j.id LIMIT %s FOR UPDATE SKIP LOCKED""".formatted(limit);
    }

    /**
     * The ready jobs past a cursor: any of a higher priority than the cursor's, then those of its priority after
     * it in (run-at, id). Each branch is one range of the ready index (a row comparison on its trailing columns
     * is an index condition), so neither reads the entries of jobs claimed before the cursor. Jobs that became
     * ready behind it (rescued, released, a rolled-back claim, a group's next job) wait for the next claim that
     * reads from the start.
     */
    private static String readyIdsAfter(String limit) {
        return "SELECT id FROM (SELECT id FROM (" + READY + """

                  AND j.priority > :after_priority
                ORDER BY j.priority DESC, j.run_at, j.id LIMIT %1$s FOR UPDATE SKIP LOCKED) AS higher
                UNION ALL
                SELECT id FROM (""".formatted(limit) + READY + """

                  AND j.priority = :after_priority AND (j.run_at, j.id) > (:after_run_at::timestamptz, :after_id::bigint)
                ORDER BY j.run_at, j.id LIMIT %1$s FOR UPDATE SKIP LOCKED) AS later) AS ready LIMIT %1$s""".formatted(limit);
    }

    /** The ready jobs of a claim: from the start, or past a cursor. */
    private static String readyIds(boolean after, String limit) {
        return after ? readyIdsAfter(limit) : readyIds(limit);
    }

    /** The cluster-wide lock of a queue's throttled claims, held to their commit; {@code :key} names the queue. */
    private static final String THROTTLE_LOCK = "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext(:key))) AS locked";

    /** The queue's running jobs, which its {@code max-running} caps. */
    private static final String COUNT_RUNNING = "SELECT count(*) FROM {schema}.job WHERE queue = :queue AND state = 'running'";

    /** A claim's limit as a bind parameter (statements that serve any size). */
    static final String LIMIT_PARAMETER = ":limit";

    /**
     * The condition that makes a LEASE claim's transaction commit without waiting for its WAL flush (set inside the
     * statement, so that the claim stays one round trip): a claim lost in a server crash only lets its job be
     * claimed again. Measured, a flush per claim cost 13% of the jobs per second in claims of 100 and 30% in claims
     * of 10.
     */
    static final String ASYNCHRONOUS_COMMIT = "AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL";

    /** A fair claim's size: its statement is made once per size, its limits constants. */
    record FairSize(int most, int keys) {
    }

    /** The size of the default listener's fair claims (batch 10, 16 keys per claim). */
    private static final FairSize DEFAULT_FAIR_SIZE = new FairSize(10, 16);

    /**
     * The plain claims with their limit written into the statement, by limit (at most
     * {@link #MOST_SIZED_STATEMENTS} each; past that the parameterized statement serves): with every limit a
     * constant, PostgreSQL's generic plan of the prepared statement serves each claim, where a limit bound as a
     * parameter made it plan the claim anew at every execution (a custom plan: 0.8–1.0 ms per claim on this
     * project's machine, a third of the claim's time in the server).
     */
    private final Map<Integer, Sql> claimLeasedBySize = new ConcurrentHashMap<>();

    private final Map<Integer, Sql> claimLeasedAfterBySize = new ConcurrentHashMap<>();

    private final Map<Integer, Sql> claimAndDeleteBySize = new ConcurrentHashMap<>();

    private final Map<Integer, Sql> claimAndDeleteAfterBySize = new ConcurrentHashMap<>();

    /** The claims of a queue capped by {@code max-running} (and nothing else), from the start and past a cursor. */
    private final Map<Integer, Sql> claimCappedBySize = new ConcurrentHashMap<>();

    private final Map<Integer, Sql> claimCappedAfterBySize = new ConcurrentHashMap<>();

    private volatile @Nullable Sql completeThenLeaseCapped;

    /** The claims of a fair queue's key alone, by size. */
    private final Map<Integer, Sql> claimFairLeasedAloneBySize = new ConcurrentHashMap<>();

    private final Map<Integer, Sql> claimFairAndDeleteAloneBySize = new ConcurrentHashMap<>();

    /** Claim sizes given statements of their own, per claim statement (containers ask for a few sizes each). */
    private static final int MOST_SIZED_STATEMENTS = 64;

    /** The fair claims' statements by their size: most jobs per claim, most keys a claim looks at. */
    private final Map<FairSize, Sql> claimFairLeased = new ConcurrentHashMap<>();

    private final Map<FairSize, Sql> claimFairAndDelete = new ConcurrentHashMap<>();

    /** Promotes due scheduled jobs of every queue (maintenance). */
    final Sql promoteDue;

    /** Promotes a queue's due jobs (before a claim that does not promote in its own round trip). */
    final Sql promoteDueOfQueue;

    /** Promotes a fair queue's due jobs, activating their keys. */
    final Sql promoteDueOfFairQueue;

    /** The LEASE claim with its limit as a parameter: a throttled claim's (its room varies claim by claim), and any claim's past {@link #MOST_SIZED_STATEMENTS} sizes. */
    final Sql claimLeased;

    final Sql claimLeasedAfter;

    final Sql claimAndDelete;

    final Sql claimAndDeleteAfter;

    final Sql chargeFairness;

    /** Locks a TRANSACTIONAL claim's keys before its charge, and returns the empty ones it may mark drained. */
    final Sql chargeLockFairness;

    /** A LEASE claimer's second look at the keys its claim marked drained. */
    final Sql recheckDrained;

    final Sql sweepLock;

    final Sql sweepSettle;

    /** Part of a sweep: folds the charges TRANSACTIONAL claims left for keys whose rows another one held. */
    final Sql foldCharges;

    final Sql activateReadyKeys;

    final Sql adoptKeylessJobs;

    /** The cluster-wide lock a throttled claim takes first. */
    final Sql throttleLock;

    final Sql countRunning;

    final Sql rateWindow;

    final Sql rateStarted;

    final Sql readyQueues;

    private final Schema schema;

    private final Counters counters;

    private final JdbcHistoryRepository history;

    private final FairnessCascade fairness;

    /** {@link #ASYNCHRONOUS_COMMIT}, or nothing where claims are durable. */
    private final String claimCommit;

    ClaimStatements(Schema schema, Counters counters, JdbcHistoryRepository history, FairnessCascade fairness,
            boolean durableClaims) {
        this.schema = schema;
        this.counters = counters;
        this.history = history;
        this.fairness = fairness;
        this.claimCommit = durableClaims ? "" : ASYNCHRONOUS_COMMIT;
        this.promoteDue = schema.sql("claim.promote-due", promoteStatement(false, true));
        this.promoteDueOfQueue = schema.sql("claim.promote-due-of-queue", promoteStatement(true, false));
        this.promoteDueOfFairQueue = schema.sql("claim.promote-due-of-fair-queue", promoteStatement(true, true));
        this.claimLeased = schema.sql("claim.lease", claimLeasedWithPromotion(false, LIMIT_PARAMETER));
        this.claimLeasedAfter = schema.sql("claim.lease-after", claimLeasedWithPromotion(true, LIMIT_PARAMETER));
        // the usual size is made now (and checked by the transition table's test with the others)
        fairLeased(DEFAULT_FAIR_SIZE);
        fairLeasedAlone(DEFAULT_FAIR_SIZE.most());
        fairAndDeleteAlone(DEFAULT_FAIR_SIZE.most());
        fairAndDelete(DEFAULT_FAIR_SIZE);
        this.chargeFairness = schema.sql("fairness.charge", fairness.chargeStatement());
        this.chargeLockFairness = schema.sql("fairness.charge-lock", fairness.chargeLockStatement());
        this.recheckDrained = schema.sql("fairness.recheck-drained", fairness.recheckDrainedStatement());
        this.sweepLock = schema.sql("fairness.sweep-lock", fairness.sweepLockStatement());
        this.sweepSettle = schema.sql("fairness.sweep-settle", fairness.sweepSettleStatement());
        this.foldCharges = schema.sql("fairness.fold-charges", fairness.foldChargesStatement());
        this.activateReadyKeys = schema.sql("fairness.activate-ready-keys", fairness.activateReadyStatement());
        this.adoptKeylessJobs = schema.sql("fairness.adopt-keyless-jobs", fairness.adoptKeylessStatement());
        this.claimAndDelete = schema.sql("claim.and-delete", claimThenSavepointStatement(false, LIMIT_PARAMETER));
        this.claimAndDeleteAfter = schema.sql("claim.and-delete-after",
                claimThenSavepointStatement(true, LIMIT_PARAMETER));
        this.readyQueues = schema.sql("claim.ready-queues", """
                SELECT q.queue FROM unnest(:queues::text[]) AS q(queue)
                WHERE EXISTS (SELECT 1 FROM {schema}.job j WHERE j.queue = q.queue AND j.state = 'ready')
                  AND NOT EXISTS (SELECT 1 FROM {schema}.queue_state s WHERE s.queue = q.queue AND s.paused)
                """);
        this.throttleLock = schema.sql("claim.throttle-lock", THROTTLE_LOCK);
        this.countRunning = schema.sql("claim.count-running", COUNT_RUNNING);
        this.rateWindow = schema.sql("claim.rate-window", """
                INSERT INTO {schema}.queue_rate AS r (queue, window_start, started)
                SELECT :queue, to_timestamp(floor(extract(epoch FROM now()) * 1000 / w) * w / 1000.0), 0
                FROM (SELECT :window_ms::bigint AS w) AS window_length
                ON CONFLICT (queue) DO UPDATE
                    SET started = CASE WHEN r.window_start = excluded.window_start THEN r.started ELSE 0 END,
                        window_start = excluded.window_start
                RETURNING started,
                          ceil(extract(epoch FROM window_start - now()) * 1000)::bigint + :window_ms AS opens_in_ms
                """);
        this.rateStarted = schema.sql("claim.rate-started", "UPDATE {schema}.queue_rate SET started = started + :started WHERE queue = :queue");
    }

    /** The LEASE claim of this request's size (a statement of its own), from the start or past its cursor. */
    Sql leased(ClaimRequest request) {
        boolean after = request.after() != null;
        return after ? sized(claimLeasedAfterBySize, request.limit(), claimLeasedAfter,
                (limit) -> claimLeasedWithPromotion(true, limit))
                : sized(claimLeasedBySize, request.limit(), claimLeased, (limit) -> claimLeasedWithPromotion(false, limit));
    }

    /** The LEASE claim with its limit bound as a parameter (a throttled claim's room differs from claim to claim). */
    Sql leasedWithinRoom(ClaimRequest request) {
        return (request.after() != null) ? claimLeasedAfter : claimLeased;
    }

    /**
     * The LEASE claim of a queue capped by {@code max-running} and nothing else, of this request's size: one round
     * trip of four statements in one transaction (the implicit one of a round trip sent without BEGIN, or the
     * caller's), the throttle's lock first. Each later statement reads with a snapshot taken after the lock was
     * granted, so it sees the jobs that every earlier capped claim of the queue started: the count tells the caller
     * the room there was, and the claim takes at most the room it finds itself (never less than counted: only
     * acknowledgements can commit in between, and they make room). Binds {@code :key} and {@code :max_running}.
     */
    Sql leasedCapped(ClaimRequest request) {
        boolean after = request.after() != null;
        Map<Integer, Sql> bySize = after ? claimCappedAfterBySize : claimCappedBySize;
        String name = after ? "claim.lease-capped-after" : "claim.lease-capped";
        // a statement per size, no parameterized one past some number: a container asks for a few sizes only
        return bySize.computeIfAbsent(request.limit(), (size) -> schema.sql(name + ":" + size, THROTTLE_LOCK,
                COUNT_RUNNING, promoteStatement(true, false), claimLeasedCappedStatement(after, size, claimCommit)));
    }

    /**
     * The claim of at most {@code size} jobs and the room {@code :max_running} leaves (counted in its snapshot),
     * committed as {@code commit} says.
     */
    private String claimLeasedCappedStatement(boolean after, int size, String commit) {
        return claimLeasedStatement("SELECT id FROM (" + readyIds(after, Integer.toString(size))
                + ") AS ready\nLIMIT greatest(0, :max_running - (" + COUNT_RUNNING + "))", commit);
    }

    /**
     * {@link #leasedCapped} of one job after the acknowledgement {@code completeOne} (its text) in the same round
     * trip, first: the count after the lock sees the room it made. Its commit waits for the WAL flush, as every
     * acknowledgement's does (a claim's alone may be lost in a server crash, an acknowledgement's may not: a job
     * that completed would run again). Made on first use.
     */
    Sql completeThenLeaseCapped(String completeOne) {
        Sql sql = completeThenLeaseCapped;
        if (sql == null) {
            sql = schema.sql("claim.complete-then-lease-capped:1", completeOne, THROTTLE_LOCK, COUNT_RUNNING,
                    promoteStatement(true, false), claimLeasedCappedStatement(false, 1, ""));
            completeThenLeaseCapped = sql;
        }
        return sql;
    }

    /** The TRANSACTIONAL claim of this request's size, from the start or past its cursor. */
    Sql andDelete(ClaimRequest request) {
        boolean after = request.after() != null;
        return after ? sized(claimAndDeleteAfterBySize, request.limit(), claimAndDeleteAfter,
                (limit) -> claimThenSavepointStatement(true, limit))
                : sized(claimAndDeleteBySize, request.limit(), claimAndDelete,
                        (limit) -> claimThenSavepointStatement(false, limit));
    }

    /**
     * Promotes due scheduled jobs, of one queue (before its claims) or of all (maintenance). A debounced job's
     * quiet window ends here: it lets go of its key, so that a later send of the key starts a new job and a
     * retry or snooze of this one, back to scheduled, never meets that job in the key's unique index.
     */
    private String promoteStatement(boolean oneQueue, boolean keyed) {
        return Steps.step("promoted", """
                UPDATE {schema}.job SET state = 'ready', debounce_key = NULL
                WHERE id = ANY(ARRAY(SELECT id FROM {schema}.job
                                     WHERE %s state = 'scheduled' AND run_at <= now()
                                     ORDER BY run_at LIMIT %s FOR UPDATE SKIP LOCKED))
                RETURNING queue%s""".formatted(oneQueue ? "queue = :queue AND" : "",
                        // a queue's promotion (before its claims) always takes as many: a constant, for a generic plan
                        oneQueue ? String.valueOf(PROMOTE_PER_CLAIM) : ":promote_limit", keyed ? ", fairness_key" : ""))
            .then(counters.delta(Transition.PROMOTE, "promoted", Counters.Rows.MANY))
            .then(keyed ? fairness.activate("promoted", "", false) : Steps.NONE)
            .tagged(Transition.PROMOTE)
            .select("SELECT count(*) FROM promoted");
    }

    /** A LEASE claim's round trip: the queue's due jobs promoted, then the claim. */
    private String[] claimLeasedWithPromotion(boolean after, String limit) {
        return new String[] { promoteStatement(true, false), claimLeasedStatement(after, limit) };
    }

    /**
     * The claim statement of this size ({@code name:size}), with the size written in, made on first use; or the
     * parameterized one past the most sizes.
     */
    private Sql sized(Map<Integer, Sql> bySize, int limit, Sql parameterized,
            Function<String, String[]> statementOfLimit) {
        Sql sql = bySize.get(limit);
        if (sql != null) {
            return sql;
        }
        if (bySize.size() >= MOST_SIZED_STATEMENTS) {
            return parameterized;
        }
        return bySize.computeIfAbsent(limit, (size) -> schema.sql(parameterized.name() + ":" + size,
                statementOfLimit.apply(Integer.toString(size))));
    }


    private String claimLeasedStatement(boolean after, String limit) {
        return claimLeasedStatement(readyIds(after, limit), claimCommit);
    }

    /**
     * The LEASE claim of the jobs {@code readyIds} selects (locked), its transaction's commit asynchronous when
     * {@code commit} is {@link #ASYNCHRONOUS_COMMIT}.
     */
    private String claimLeasedStatement(String readyIds, String commit) {
        return Steps.step("claimed", """
                UPDATE {schema}.job j
                %s
                WHERE j.id = ANY(ARRAY(%s))
                  AND %s
                  %s
                %s""".formatted(JobColumns.LEASE_SET, readyIds, Transition.CLAIM_LEASE.guard("j"),
                commit, JobColumns.LEASE_RETURNING))
            .then(counters.delta(Transition.CLAIM_LEASE, "claimed", Counters.Rows.MANY))
            .tagged(Transition.CLAIM_LEASE)
            .select(JobColumns.CLAIMED_COLUMNS);
    }

    /** The fair LEASE claim of this size, made on first use. */
    Sql fairLeased(FairSize size) {
        return claimFairLeased.computeIfAbsent(size, (s) -> schema.sql("claim.fair-lease:" + s.most() + "-of-" + s.keys(),
                GenericPlan.FORCE_IN_OWN_TRANSACTION, fairClaimLeasedStatement(s)));
    }

    /**
     * The LEASE claim of a fair queue's key alone ({@link FairnessCascade#leasedAlone}) of this size, after
     * the promotion of the queue's due jobs in the same round trip: the claim locks no key row, so holding the rows
     * a promotion locks through it cannot make two claimers wait for each other. Made on first use.
     */
    Sql fairLeasedAlone(int limit) {
        return claimFairLeasedAloneBySize.computeIfAbsent(limit, (size) -> schema.sql(
                "claim.fair-lease-alone:" + size, promoteStatement(true, true), GenericPlan.FORCE_IN_OWN_TRANSACTION,
                claimPicked(fairness.leasedAlone(size), JobColumns.CLAIMED_COLUMNS)));
    }

    /**
     * The TRANSACTIONAL claim of a fair queue's key alone of this size ({@link FairnessCascade#leasedAlone}'s
     * picking, then the deletion of the jobs picked), then its savepoint, as a plain TRANSACTIONAL claim's: it
     * charges no key and takes no cap's slot, so nothing of it needs the rollback to the savepoint to be undone, and
     * handlers that succeed run in no subtransaction (a failure restores the rows from their rests). Made on first
     * use.
     */
    Sql fairAndDeleteAlone(int limit) {
        return claimFairAndDeleteAloneBySize.computeIfAbsent(limit, (size) -> schema.sql(
                "claim.fair-and-delete-alone:" + size, GenericPlan.FORCE,
                deletePicked(fairness.leasedAlone(size), JobColumns.DELETE_RETURNING_WITH_REST,
                        JobColumns.CLAIMED_WITH_RESTS),
                GenericPlan.RESTORE, ClaimSavepoint.SET));
    }

    /** The fair TRANSACTIONAL claim of this size, made on first use. */
    Sql fairAndDelete(FairSize size) {
        return claimFairAndDelete.computeIfAbsent(size,
                (s) -> schema.sql("claim.fair-and-delete:" + s.most() + "-of-" + s.keys(), ClaimSavepoint.SET,
                        GenericPlan.FORCE, fairClaimAndDeleteStatement(s), GenericPlan.RESTORE));
    }

    /** The fair LEASE claim: the keys' shares ({@link FairnessCascade}), then the claim of the jobs picked. */
    private String fairClaimLeasedStatement(FairSize size) {
        return claimPicked(fairness.leased(size.most(), size.keys())
            .then("fair_emptied", "SELECT key FROM fair_charged WHERE emptied"), JobColumns.FAIR_CLAIMED_COLUMNS);
    }

    /** The LEASE claim of the jobs the steps {@code picking} picked ({@code fair_picked}), returning {@code columns}. */
    private String claimPicked(Steps picking, String columns) {
        return picking.then("claimed", """
                UPDATE {schema}.job j
                %s
                WHERE j.id = ANY(ARRAY(SELECT id FROM fair_picked))
                  AND %s
                  %s
                %s""".formatted(JobColumns.LEASE_SET, Transition.CLAIM_LEASE.guard("j"), claimCommit,
                JobColumns.LEASE_RETURNING))
            .then(counters.delta(Transition.CLAIM_LEASE, "claimed", Counters.Rows.MANY))
            .tagged(Transition.CLAIM_LEASE)
            .select(columns);
    }

    /**
     * A TRANSACTIONAL claim's round trip: the claim, at the transaction's top level, then the savepoint that the
     * handlers' writes follow (rolling back to it keeps the claim, which {@link Transition#CLAIM_RESTORE} then
     * undoes).
     */
    private String[] claimThenSavepointStatement(boolean after, String limit) {
        return new String[] { claimAndDeleteStatement(after, limit), ClaimSavepoint.SET };
    }


    private String claimAndDeleteStatement(boolean after, String limit) {
        return Steps.step("claimed", """
                DELETE FROM {schema}.job j
                WHERE j.id = ANY(ARRAY(%s))
                %s""".formatted(readyIds(after, limit), JobColumns.DELETE_RETURNING_WITH_REST))
            .then(history.archive("claimed", false))
            .then(counters.delta(Transition.CLAIM_DELETE, "claimed", Counters.Rows.MANY))
            .tagged(Transition.CLAIM_DELETE)
            .select(JobColumns.CLAIMED_WITH_RESTS);
    }

    /** The fair TRANSACTIONAL claim: the keys' shares, then the deletion of the jobs picked. */
    private String fairClaimAndDeleteStatement(FairSize size) {
        return deletePicked(fairness.deleted(size.most(), size.keys()), JobColumns.DELETE_RETURNING,
                JobColumns.FAIR_CLAIMED_COLUMNS);
    }

    /**
     * The TRANSACTIONAL claim of the jobs the steps {@code picking} picked ({@code fair_picked}), the deleted rows
     * returning {@code returning} and the statement {@code columns}.
     */
    private String deletePicked(Steps picking, String returning, String columns) {
        return picking.then("claimed", """
                DELETE FROM {schema}.job j
                WHERE j.id = ANY(ARRAY(SELECT id FROM fair_picked))
                %s""".formatted(returning))
            .then(history.archive("claimed", false))
            .then(counters.delta(Transition.CLAIM_DELETE, "claimed", Counters.Rows.MANY))
            .tagged(Transition.CLAIM_DELETE)
            .select(columns);
    }
}
