package io.pgqueue.internal.persistence;

/**
 * Fairness inside a queue, as SQL: the {@link Transition.Cascade#FAIRNESS} cascade that keeps a key active while
 * it may have ready jobs, and the fair claims, which serve a queue's keys by stride scheduling.
 *
 * <p>Each key of a queue has a row in {@code fair_key} with a pass: the virtual time of its claims, which grows by
 * {@code n / weight} when a claim takes {@code n} of its jobs. A claim looks at the active keys with the lowest
 * passes, gives the j-th job of key k the tag {@code pass(k) + j / weight(k)}, and takes the jobs with the lowest
 * tags: under contention each key receives claims in proportion to its weight; a key alone receives every slot
 * (the claim is work-conserving); within a key, jobs go by priority, run-at and id as in any claim. A key that
 * becomes active starts at the lowest pass of the queue's active keys: it neither hoards credit from its idle
 * time nor waits behind the others.
 *
 * <p>A key is active from the statement that makes one of its jobs ready until a claim found it empty and a
 * sweep confirmed it. Statements that make jobs ready hold their keys' rows {@code FOR KEY SHARE} when active,
 * or activate them; the sweep takes a drained key {@code FOR UPDATE SKIP LOCKED} (so it leaves alone any key
 * such a statement holds) and looks for its jobs in a later statement, whose snapshot sees every job made ready
 * before: no key is deactivated under a job that is being made ready.
 */
final class FairnessCascade {

    /** The lowest pass of a queue's active keys, where a key that becomes active starts. */
    private static final String LOWEST_PASS = """
            coalesce((SELECT min(a.pass) FROM {schema}.fair_key a WHERE a.queue = %s AND a.active AND NOT a.drained AND NOT a.paused), 0)""";

    /**
     * A job whose group lets it run now: no job of its group is running, and no earlier one is pending (a failed
     * one waiting for its retry counts as pending when failures block the group). Shared with the plain claim.
     */
    static final String GROUP_TURN = """
            (j.group_key IS NULL OR NOT EXISTS (
                    SELECT 1 FROM {schema}.job g
                    WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
                      AND g.id <> j.id
                      AND (g.state = 'running'
                           OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))""";

    /** The configured weights and caps per key, bound as arrays, and the weight of the keys not listed. */
    private static final Steps SETTINGS = Steps.step("fair_settings", """
            SELECT * FROM unnest(:fair_keys::text[], :fair_weights::float8[], :fair_caps::int[]) AS c(key, weight, cap)""");

    /**
     * Key {@code k}'s pass as an operator sees it: its row's, plus the charges TRANSACTIONAL claims left for it
     * while another one held the row ({@link #chargeStatement}), not yet folded into it.
     */
    static final String PASS = """
            k.pass + coalesce((SELECT sum(f.amount) FROM {schema}.fair_charge f WHERE f.queue = k.queue AND f.key = k.key), 0)""";

    /** A key's weight: set at run time, else configured, else the queue's default. */
    private static final String WEIGHT = """
            coalesce(k.weight, (SELECT c.weight FROM fair_settings c WHERE c.key = k.key), :fair_default_weight::float8)""";

    /** A key's cap on running jobs: configured for the key, else the queue's (null: none). */
    private static final String CAP = """
            coalesce((SELECT c.cap FROM fair_settings c WHERE c.key = k.key), :fair_default_cap::int)""";

    /**
     * "Ready", written so that only the ready-key index can serve it: its predicate says the same, while the
     * queue's claim index (`state = 'ready'`) is not implied by it. Otherwise a planner whose statistics say one
     * key holds nearly every row (one tenant's import analysed alone) takes the claim index, in the same order,
     * and walks that key's whole backlog to find a small key's job — a claim then costs hundreds of milliseconds.
     */
    private static String keyReady(String alias) {
        return "%1$s.state >= 'ready' AND %1$s.state <= 'ready'".formatted(alias);
    }

    /**
     * Whether key {@code key} of queue {@code queue} has a ready job: one probe of the ready-key index. Written as
     * a scalar subquery in that index's order, not as EXISTS: the planner makes an EXISTS a semi-join, and with
     * statistics taken while one key held the whole backlog it expects every row to match any key, so it read the
     * whole job table for each key (60 ms a statement behind 200,000 jobs of one key, measured); a subquery that
     * must return the first row in this order is cheapest through the index whatever the statistics say.
     */
    static String hasReadyJob(String queue, String key) {
        return """
                coalesce((SELECT true FROM {schema}.job j WHERE j.queue = %s AND j.fairness_key = %s AND %s
                          ORDER BY j.priority DESC, j.run_at, j.id LIMIT 1), false)""".formatted(queue, key, keyReady("j"));
    }

    /**
     * How many ready jobs a key has, up to one more than a claim takes: a share larger than that would leave slots
     * empty (a small key's one job must not take a claim's every slot), and a claim that took them all left the key
     * empty. Counted through the key's index range, and only when the claim looks at more than one key (a key alone
     * takes its room); the constant limit keeps the planner's estimate, and with it JIT, out of the statement, and
     * the index's order keeps it on the index (a limit alone makes a sequential scan look cheap).
     */
    private static String available(int most) {
        return """
                CASE WHEN (SELECT count(*) FROM fair_candidates) = 1 THEN %2$d + 1
                     ELSE (SELECT count(*)::int FROM (
                               SELECT 1 FROM {schema}.job a
                               WHERE a.queue = :queue AND a.fairness_key = c.key AND %1$s
                               ORDER BY a.priority DESC, a.run_at, a.id LIMIT %2$d + 1) AS ready) END""".formatted(
                keyReady("a"), most);
    }

    /**
     * Whether a claim left a key without ready jobs, as far as its snapshot tells: it took all the key's ready jobs
     * it counted (or, for a key alone, which it does not count, found none to take). Rows another claim holds count
     * as ready, so a key two claimers share is not taken for empty.
     */
    private static final String EMPTIED = """
            (r.room > 0 AND CASE WHEN (SELECT count(*) FROM fair_candidates) = 1 THEN coalesce(t.n, 0) = 0
                                 ELSE coalesce(t.n, 0) >= r.ready END)""";

    /**
     * The claim's weighted shares of its limit among the keys that have ready jobs: the limit lowest tags, counted
     * per key, the j-th job of a key up to what it has.
     */
    private static final Steps SHARES = Steps.step("fair_shares", """
            SELECT key, count(*)::int AS share FROM (
                SELECT r.key, row_number() OVER (ORDER BY r.pass + g.j / r.weight, r.key) AS n
                FROM fair_rooms r CROSS JOIN LATERAL generate_series(1, least(r.room, r.ready)) AS g(j)) AS tags
            WHERE n <= :limit
            GROUP BY key""");

    /**
     * Each key's jobs of its share, in the key's claim order, locked. The outer limit changes nothing (the shares
     * add up to it) but the planner's estimate: without it a per-key limit it cannot see counts as a tenth of the
     * key's rows, and the statement's cost crosses jit_above_cost, whose compilation costs a second per claim.
     */
    private static Steps picked(String shares, int most) {
        return Steps.step("fair_picked", """
                SELECT p.id, s.key FROM %s s CROSS JOIN LATERAL (
                    SELECT j.id FROM {schema}.job j
                    WHERE j.queue = :queue AND j.fairness_key = s.key AND %s AND %s
                    ORDER BY j.priority DESC, j.run_at, j.id LIMIT s.share FOR UPDATE SKIP LOCKED) AS p
                LIMIT %d""".formatted(shares, keyReady("j"), GROUP_TURN, most))
            .then("fair_taken", "SELECT key, count(*)::int AS n FROM fair_picked GROUP BY key");
    }

    /**
     * The keys of the queue the claim looks at: the active, unpaused ones with the lowest passes, unless the
     * whole queue is paused.
     */
    private static String candidates(int most, int keys) {
        return """
                FROM {schema}.fair_key k
                WHERE k.queue = :queue AND k.active AND NOT k.drained AND NOT k.paused
                  AND NOT EXISTS (SELECT 1 FROM {schema}.queue_state q WHERE q.queue = :queue AND q.paused)
                ORDER BY k.pass, k.key LIMIT %d""".formatted(Math.max(most, keys));
    }

    /**
     * The configured settings, then the keys a claim looks at with their weights and caps ({@code fair_candidates}).
     * A key's pass is read from its row: the charges TRANSACTIONAL claims left beside it ({@link #chargeStatement})
     * count once the next statement that locks the row folds them, as those of transactions still running count
     * once they commit (summing them here cost every claim an index probe per key, on a table that is inserted
     * into and deleted from by every claim: measured, it undid the gain).
     */
    private static Steps candidateKeys(int most, int keys) {
        return SETTINGS.then("fair_candidates", """
                SELECT k.key, k.pass, %s AS weight, %s AS cap
                %s""".formatted(WEIGHT, CAP, candidates(most, keys)));
    }

    /**
     * The FAIRNESS cascade of a statement whose CTE {@code rows} returns {@code queue}, {@code fairness_key} and,
     * when {@code readyOnly}, {@code state}: the keys of its rows (those made ready) are held FOR KEY SHARE
     * when active, else activated at the queue's lowest pass. CTE names start with {@code prefix}.
     */
    Steps activate(String rows, String prefix, boolean readyOnly) {
        String ready = readyOnly ? " AND state = 'ready'" : "";
        String rowReady = readyOnly ? " AND r.state = 'ready'" : "";
        return Steps.step(prefix + "fair_held", """
                SELECT k.queue, k.key, k.drained FROM {schema}.fair_key k
                WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM %s WHERE fairness_key IS NOT NULL%s)
                  AND k.active
                FOR KEY SHARE OF k""".formatted(rows, ready))
            // "drained" as the lock returned it, not as this statement's snapshot has it: a claim that marked the
            // key while this statement waited for its lock committed after the snapshot was taken
            .then(prefix + "fair_refill", """
                SELECT k.queue, k.key FROM {schema}.fair_key k
                WHERE (k.queue, k.key) IN (SELECT queue, key FROM %sfair_held WHERE drained)
                ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k""".formatted(prefix))
            .then(prefix + "fair_refilled", """
                UPDATE {schema}.fair_key k SET drained = false, updated_at = now()
                FROM %sfair_refill f WHERE k.queue = f.queue AND k.key = f.key""".formatted(prefix))
            .then(prefix + "fair_activated", """
                INSERT INTO {schema}.fair_key AS k (queue, key, pass)
                SELECT DISTINCT r.queue, r.fairness_key, %s
                FROM %s r
                WHERE r.fairness_key IS NOT NULL%s
                  AND NOT EXISTS (SELECT 1 FROM %sfair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
                ORDER BY r.queue, r.fairness_key
                ON CONFLICT (queue, key) DO UPDATE
                    SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()"""
                .formatted(LOWEST_PASS.formatted("r.queue"), rows, rowReady, prefix));
    }

    /**
     * The CTEs of a LEASE claim that picks its jobs fairly, ending in {@code fair_picked} (id, key) and
     * {@code fair_charged}, which moves the passes of the keys it looked at. Uncapped keys are read without a lock
     * (two claimers may take jobs of one hot key side by side: the jobs' own locks keep them apart) and charged at
     * the end of the statement, their rows locked in key order (so two claims never wait for each other in a
     * cycle) and each pass moved from its newest value. A capped key's row is locked first (FOR NO KEY UPDATE SKIP
     * LOCKED: one claimer at a time) and its running jobs counted, exactly: a key whose row another claim changed
     * after this statement's snapshot was taken (its running jobs invisible here) takes nothing this time.
     *
     * <p>Its limits, at most {@code most} jobs over at most {@code keys} keys, are written in as constants (a
     * statement per size), so that PostgreSQL's generic plan of the prepared statement is the plan it would make
     * for any claim (a limit it cannot see it takes as a tenth of the rows, and the generic plan then reads whole
     * tables), and the statement is planned once rather than at every claim.
     */
    Steps leased(int most, int keys) {
        return candidateKeys(most, keys)
            .then("fair_capped", """
                SELECT k.key, k.pass,
                       (SELECT s.pass FROM {schema}.fair_key s WHERE s.queue = k.queue AND s.key = k.key) AS seen_pass
                FROM {schema}.fair_key k
                WHERE k.queue = :queue AND k.key = ANY(ARRAY(SELECT key FROM fair_candidates WHERE cap IS NOT NULL))
                ORDER BY k.key
                FOR NO KEY UPDATE OF k SKIP LOCKED""")
            .then("fair_room", """
                SELECT c.key, c.pass, c.weight, c.cap,
                       CASE WHEN c.cap IS NULL THEN :limit
                            WHEN l.key IS NULL OR l.pass IS DISTINCT FROM l.seen_pass THEN -1
                            ELSE greatest(0, least(:limit, c.cap - (
                                SELECT count(*) FROM {schema}.job r
                                WHERE r.queue = :queue AND r.state = 'running' AND r.fairness_key = c.key))) END AS room
                FROM fair_candidates c LEFT JOIN fair_capped l ON l.key = c.key""")
            .then("fair_rooms", "SELECT c.*, %s AS ready FROM fair_room c".formatted(available(most)))
            .then(SHARES)
            .then(picked("fair_shares", most))
            // a key alone in the queue is not charged (unless capped: a capped key's claims change its row, which
            // is how a concurrent claim knows its count of running jobs is stale): a key that becomes active starts
            // at the lowest pass of the active keys, its own, so nothing is owed; its claims then lock no key row
            .then("fair_moves", """
                SELECT r.key, r.weight, coalesce(t.n, 0) AS n, %1$s AS emptied
                FROM fair_rooms r LEFT JOIN fair_taken t ON t.key = r.key
                WHERE r.room >= 0 AND (%1$s OR ((t.n > 0 OR r.room = 0)
                                                AND (r.cap IS NOT NULL OR (SELECT count(*) FROM fair_candidates) > 1)))"""
                .formatted(EMPTIED))
            .then("fair_locked", """
                SELECT k.key FROM {schema}.fair_key k
                WHERE k.queue = :queue AND k.key = ANY(ARRAY(SELECT key FROM fair_moves))
                ORDER BY k.key FOR NO KEY UPDATE OF k""")
            .then(drainable("SELECT m.key FROM fair_locked x JOIN fair_moves m ON m.key = x.key WHERE m.emptied"))
            .then("fair_charged", """
                UPDATE {schema}.fair_key k
                SET pass = CASE WHEN m.n > 0 THEN k.pass + m.n / m.weight
                                ELSE greatest(k.pass, (SELECT max(b.pass) FROM {schema}.fair_key b
                                                       WHERE b.queue = :queue AND b.active AND NOT b.drained AND NOT b.paused)) END,
                    drained = k.drained OR d.key IS NOT NULL, updated_at = now()
                FROM fair_locked x JOIN fair_moves m ON m.key = x.key LEFT JOIN fair_drainable d ON d.key = x.key
                WHERE k.queue = :queue AND k.key = x.key
                RETURNING k.key, d.key IS NOT NULL AS emptied""");
    }

    /**
     * The keys a claim found empty ({@code emptied}, a query of keys whose rows it holds) that it may mark drained:
     * those it can lock {@code FOR UPDATE} at once. A statement making one of the key's jobs ready holds the row
     * {@code FOR KEY SHARE} until its transaction ends (its job invisible to the claim): that key stays as it is.
     * A statement that locks the key after this waits for the claim's end, and then sees the mark (and refills
     * the key, {@link #activate}). A job committed before the lock but after the claim's snapshot is seen by the
     * claimer's second look, {@link #recheckDrainedStatement}.
     */
    private static Steps drainable(String emptied) {
        return Steps.step("fair_drainable", """
                SELECT k.key FROM {schema}.fair_key k
                WHERE k.queue = :queue AND k.key = ANY(ARRAY(%s))
                FOR UPDATE OF k SKIP LOCKED""".formatted(emptied));
    }

    /**
     * The CTEs of a LEASE claim of a key alone in its queue, ending in {@code fair_picked} (id, key): the queue's
     * active key if it is the only one and uncapped, and up to {@code most} of its jobs in claim order, locked. A
     * key alone owes nothing (a key that becomes active starts at its pass), so no pass moves and no key row is
     * locked: the claim is a plain claim on the ready-key index. With another key active, or none, it takes
     * nothing, and the fair claim decides (a key that has no ready job left is marked drained there).
     */
    Steps leasedAlone(int most) {
        return SETTINGS.then("fair_alone", """
                SELECT k.key FROM {schema}.fair_key k
                WHERE k.queue = :queue AND k.active AND NOT k.drained AND NOT k.paused
                  AND NOT EXISTS (SELECT 1 FROM {schema}.queue_state q WHERE q.queue = :queue AND q.paused)
                LIMIT 2""")
            .then("fair_lone", """
                SELECT k.key FROM fair_alone k
                WHERE (SELECT count(*) FROM fair_alone) = 1 AND %s IS NULL""".formatted(CAP))
            .then("fair_picked", """
                SELECT j.id, j.fairness_key AS key FROM {schema}.job j
                WHERE j.queue = :queue AND j.fairness_key = (SELECT key FROM fair_lone) AND %s AND %s
                ORDER BY j.priority DESC, j.run_at, j.id LIMIT %d FOR UPDATE SKIP LOCKED""".formatted(keyReady("j"),
                    GROUP_TURN, most));
    }

    /**
     * The CTEs of a TRANSACTIONAL claim that picks its jobs fairly, ending in {@code fair_picked} (id, key) and
     * {@code fair_emptied} (the keys it found without ready jobs). It runs in the handlers' transaction, so it
     * locks no key row (the passes move at the end of the transaction, {@link #chargeStatement}); a key's cap is
     * a set of advisory slots, one per running job, held until the transaction ends (a rollback to the claim's
     * savepoint gives them back with the jobs).
     */
    Steps deleted(int most, int keys) {
        return candidateKeys(most, keys)
            .then("fair_room", """
                SELECT c.*, CASE WHEN c.cap IS NULL THEN :limit ELSE least(:limit, c.cap) END AS room
                FROM fair_candidates c""")
            .then("fair_rooms", "SELECT c.*, %s AS ready FROM fair_room c".formatted(available(most)))
            .then(SHARES)
            .then("fair_slots", """
                SELECT s.key,
                       CASE WHEN c.cap IS NULL THEN s.share
                            ELSE (SELECT count(*)::int FROM (
                                      SELECT 1 FROM generate_series(0, c.cap - 1) AS g(slot)
                                      WHERE pg_try_advisory_xact_lock(hashtext(:fair_lock || s.key), g.slot)
                                      LIMIT s.share) AS held) END AS share
                FROM fair_shares s JOIN fair_candidates c ON c.key = s.key""")
            .then(picked("fair_slots", most))
            .then("fair_emptied", """
                SELECT r.key FROM fair_rooms r LEFT JOIN fair_taken t ON t.key = r.key WHERE %s""".formatted(EMPTIED));
    }

    /**
     * Moves the passes of the keys a TRANSACTIONAL claim took jobs from ({@code :keys}, {@code :counts}; a key it
     * found empty counts zero) and marks the keys it left empty ({@code :emptied}) drained, at the end of the
     * handlers' transaction. A key the claim found empty is looked at again here, since its handlers may have run
     * for long: one that has a ready job now (sent while they ran) is not marked, or it would wait for a sweep,
     * which a busy queue may not run soon.
     *
     * <p>The rows it moves stay locked until the commit, so it takes only those it can lock at once (the keys it
     * found empty it already holds, {@link #chargeLockStatement}): for a key another transaction's charge holds,
     * it leaves the charge in {@code fair_charge} instead, committed or rolled back with its jobs, and the next
     * statement that locks the key folds it into the pass. Transactions that took jobs of the same keys (a claim
     * of ten jobs over ten keys takes one of each) then commit side by side, where each waited for the previous
     * one's commit.
     */
    String chargeStatement() {
        // a key alone in the queue now is not charged, as a LEASE claim of a key alone is not (its cap, if any, is
        // held by advisory slots here, not by the key's row): its claims lock no key row and leave no charge
        return SETTINGS
            .then("charges", "SELECT * FROM unnest(:keys::text[], :counts::int[]) AS c(key, n)")
            .then("fair_alone", """
                SELECT count(*) = 1 AS alone FROM (
                    SELECT 1 FROM {schema}.fair_key a
                    WHERE a.queue = :queue AND a.active AND NOT a.drained AND NOT a.paused LIMIT 2) AS active_keys""")
            .then("locked", """
                SELECT k.key, k.pass, %s AS weight FROM {schema}.fair_key k
                WHERE k.queue = :queue AND k.key = ANY(:keys::text[])
                  AND (k.key = ANY(:emptied::text[]) OR NOT (SELECT alone FROM fair_alone))
                ORDER BY k.key FOR NO KEY UPDATE OF k SKIP LOCKED""".formatted(WEIGHT))
            .then("left_charges", """
                INSERT INTO {schema}.fair_charge (queue, key, amount)
                SELECT :queue, k.key, c.n / %s
                FROM {schema}.fair_key k JOIN charges c ON c.key = k.key
                WHERE k.queue = :queue AND c.n > 0 AND NOT (SELECT alone FROM fair_alone)
                  AND k.key NOT IN (SELECT key FROM locked)""".formatted(WEIGHT))
            .then(folded("SELECT key FROM locked"))
            .select("""
                UPDATE {schema}.fair_key k
                SET pass = CASE WHEN c.n > 0 THEN l.pass + f.amount + c.n / l.weight
                                ELSE greatest(l.pass + f.amount, (SELECT max(b.pass) FROM {schema}.fair_key b
                                                                  WHERE b.queue = :queue AND b.active AND NOT b.drained AND NOT b.paused)) END,
                    drained = k.drained OR CASE WHEN k.key = ANY(:emptied::text[]) THEN NOT %s ELSE false END,
                    updated_at = now()
                FROM locked l JOIN charges c ON c.key = l.key
                     CROSS JOIN LATERAL (SELECT coalesce(sum(d.amount), 0) AS amount FROM folded d WHERE d.key = l.key) AS f
                WHERE k.queue = :queue AND k.key = l.key""".formatted(hasReadyJob(":queue", "k.key")));
    }

    /**
     * The charges left in {@code fair_charge} for the keys {@code keys} selects (keys whose rows the statement
     * holds), deleted and returned ({@code folded}: key, amount) for the statement to add to the passes. Only the
     * holder of a key's row folds its charges, so no two statements fold the same row.
     */
    private static Steps folded(String keys) {
        return Steps.step("folded", """
                DELETE FROM {schema}.fair_charge f WHERE f.queue = :queue AND f.key = ANY(ARRAY(%s))
                RETURNING f.key, f.amount""".formatted(keys));
    }

    /**
     * Folds the charges left in {@code fair_charge} for the queue's keys into their passes, for the keys whose rows
     * it can lock at once: part of a sweep, so that the charges left by a queue's last busy moments do not wait for
     * its keys' next claims.
     */
    String foldChargesStatement() {
        return Steps.step("locked", """
                SELECT k.key FROM {schema}.fair_key k
                WHERE k.queue = :queue AND k.key IN (SELECT c.key FROM {schema}.fair_charge c WHERE c.queue = :queue)
                ORDER BY k.key FOR NO KEY UPDATE OF k SKIP LOCKED""")
            .then(folded("SELECT key FROM locked"))
            .select("""
                UPDATE {schema}.fair_key k SET pass = k.pass + f.amount, updated_at = now()
                FROM (SELECT key, sum(amount) AS amount FROM folded GROUP BY key) AS f
                WHERE k.queue = :queue AND k.key = f.key""");
    }

    /**
     * Before the charge of a TRANSACTIONAL claim that found keys empty ({@code :emptied}): locks the keys it
     * charges in key order, as the charge does, and returns the empty ones it may mark drained ({@link #drainable}).
     * The charge then looks for their ready jobs in a later statement, whose snapshot sees every job committed
     * before the locks were taken.
     */
    String chargeLockStatement() {
        return Steps.step("locked", """
                SELECT k.key FROM {schema}.fair_key k
                WHERE k.queue = :queue AND k.key = ANY(:keys::text[])
                ORDER BY k.key FOR NO KEY UPDATE OF k""")
            .then(drainable("SELECT key FROM locked WHERE key = ANY(:emptied::text[])"))
            .select("SELECT key FROM fair_drainable ORDER BY key");
    }

    /**
     * A LEASE claimer's second look at the keys its claim marked drained ({@code :keys}), in a statement after the
     * claim's: a job sent to one of them that committed after the claim's snapshot was taken, before the claim
     * locked the key, makes it claimable again rather than waiting for a sweep.
     */
    String recheckDrainedStatement() {
        return """
                UPDATE {schema}.fair_key k SET drained = false, updated_at = now()
                WHERE k.queue = :queue AND k.key = ANY(:keys::text[]) AND k.drained AND %s"""
            .formatted(hasReadyJob("k.queue", "k.key"));
    }

    /**
     * The first half of a sweep: marks the queue's drained keys that no statement holds (FOR UPDATE SKIP LOCKED
     * leaves those held FOR KEY SHARE by a statement making a job ready, and those a claim is using).
     */
    String sweepLockStatement() {
        return """
                UPDATE {schema}.fair_key k SET sweeping = true
                WHERE k.queue = :queue AND k.key = ANY(ARRAY(
                    SELECT d.key FROM {schema}.fair_key d WHERE d.queue = :queue AND d.drained
                    FOR UPDATE OF d SKIP LOCKED))""";
    }

    /**
     * The second half, a later statement of the same transaction (its snapshot sees every job made ready before
     * the lock): a marked key without ready or running jobs becomes inactive.
     */
    String sweepSettleStatement() {
        // the keys with running jobs are read once, from the queue's running jobs: asked key by key, each key read
        // them all (a settle of 870 keys took 630 ms behind 128 running jobs, measured)
        return Steps.step("running_keys", """
                SELECT DISTINCT j.fairness_key AS key FROM {schema}.job j
                WHERE j.queue = :queue AND j.state = 'running' AND j.fairness_key IS NOT NULL""")
            .select("""
                UPDATE {schema}.fair_key k
                SET sweeping = false, drained = false, updated_at = now(),
                    active = %s OR k.key IN (SELECT key FROM running_keys)
                WHERE k.queue = :queue AND k.sweeping""".formatted(hasReadyJob("k.queue", "k.key")));
    }

    /**
     * Gives up to a thousand of the queue's ready jobs without a key the default key ({@code :key}), oldest first:
     * a fair claim looks at keys only, and such a job (sent by {@code pgqueue.send()} without its key, or by an
     * application that does not know the queue is fair) would wait forever. Part of the safety sweep, which runs
     * when the listener starts and while it idles; read through the queue's claim index.
     */
    String adoptKeylessStatement() {
        return Steps.step("adopted", """
                UPDATE {schema}.job SET fairness_key = :key
                WHERE id = ANY(ARRAY(SELECT id FROM {schema}.job
                                     WHERE queue = :queue AND state = 'ready' AND fairness_key IS NULL
                                     LIMIT 1000 FOR UPDATE SKIP LOCKED))
                RETURNING 1""").select("SELECT count(*) FROM adopted");
    }

    /**
     * Activates every key of the queue that has ready jobs and is not active (a safety net, at a fair listener's
     * start and now and then while it idles: jobs made ready by a node that predates fairness, or while no fair
     * listener ran). Walks the distinct keys through the ready-key index, one probe per key.
     */
    String activateReadyStatement() {
        return Steps.recursiveStep("ready_keys (key)", """
                (SELECT fairness_key FROM {schema}.job
                 WHERE queue = :queue AND state = 'ready' AND fairness_key IS NOT NULL
                 ORDER BY fairness_key LIMIT 1)
                UNION ALL
                SELECT (SELECT j.fairness_key FROM {schema}.job j
                        WHERE j.queue = :queue AND j.state = 'ready' AND j.fairness_key IS NOT NULL
                          AND j.fairness_key > r.key
                        ORDER BY j.fairness_key LIMIT 1)
                FROM ready_keys r WHERE r.key IS NOT NULL""")
            .then("activated", """
                INSERT INTO {schema}.fair_key AS k (queue, key, pass)
                SELECT :queue, key, %s FROM ready_keys WHERE key IS NOT NULL
                ON CONFLICT (queue, key) DO UPDATE
                    SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
                    WHERE NOT k.active
                RETURNING 1""".formatted(LOWEST_PASS.formatted(":queue")))
            .select("SELECT count(*) FROM activated");
    }
}
