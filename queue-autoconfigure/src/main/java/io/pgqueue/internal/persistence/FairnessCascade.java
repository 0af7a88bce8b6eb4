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
            coalesce((SELECT min(a.pass) FROM {schema}.fair_key a WHERE a.queue = %s AND a.active AND NOT a.paused), 0)""";

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
    private static final String SETTINGS = """
            fair_settings AS (
                SELECT * FROM unnest(:fair_keys::text[], :fair_weights::float8[], :fair_caps::int[]) AS c(key, weight, cap)
            )""";

    /** A key's weight: set at run time, else configured, else the queue's default. */
    private static final String WEIGHT = """
            coalesce(k.weight, (SELECT c.weight FROM fair_settings c WHERE c.key = k.key), :fair_default_weight::float8)""";

    /** A key's cap on running jobs: configured for the key, else the queue's (null: none). */
    private static final String CAP = """
            coalesce((SELECT c.cap FROM fair_settings c WHERE c.key = k.key), :fair_default_cap::int)""";

    /**
     * The claim's weighted shares of its limit among the keys that have room: the limit lowest tags, counted per
     * key. Pure arithmetic: it assumes every key has its share ready, and the claim reports the keys it found
     * empty (drained), whose slots the next claim fills.
     */
    private static final String SHARES = """
            , fair_shares AS (
                SELECT key, count(*)::int AS share FROM (
                    SELECT r.key FROM fair_rooms r CROSS JOIN LATERAL generate_series(1, r.room) AS g(j)
                    ORDER BY r.pass + g.j / r.weight, r.key LIMIT :limit) AS tags
                GROUP BY key
            )""";

    /**
     * Each key's jobs of its share, in the key's claim order, locked. The outer limit changes nothing (the shares
     * add up to it) but the planner's estimate: without it a per-key limit it cannot see counts as a tenth of the
     * key's rows, and the statement's cost crosses jit_above_cost, whose compilation costs a second per claim.
     */
    private static final String PICKED = """
            , fair_picked AS (
                SELECT p.id, s.key FROM %s s CROSS JOIN LATERAL (
                    SELECT j.id FROM {schema}.job j
                    WHERE j.queue = :queue AND j.fairness_key = s.key AND j.state = 'ready' AND %s
                    ORDER BY j.priority DESC, j.run_at, j.id LIMIT s.share FOR UPDATE SKIP LOCKED) AS p
                LIMIT :limit
            ), fair_taken AS (
                SELECT key, count(*)::int AS n FROM fair_picked GROUP BY key
            )""";

    /**
     * The keys of the queue the claim looks at: the active, unpaused ones with the lowest passes, unless the
     * whole queue is paused.
     */
    private static final String CANDIDATES = """
            FROM {schema}.fair_key k
            WHERE k.queue = :queue AND k.active AND NOT k.paused
              AND NOT EXISTS (SELECT 1 FROM {schema}.queue_state q WHERE q.queue = :queue AND q.paused)
            ORDER BY k.pass, k.key LIMIT :key_scan""";

    /**
     * The FAIRNESS cascade of a statement whose CTE {@code rows} returns {@code queue}, {@code fairness_key} and,
     * when {@code readyOnly}, {@code state}: the keys of its rows (those made ready) are held FOR KEY SHARE
     * when active, else activated at the queue's lowest pass. CTE names start with {@code prefix}.
     */
    String activateCte(String rows, String prefix, boolean readyOnly) {
        String ready = readyOnly ? " AND state = 'ready'" : "";
        return """
                , %1$sfair_held AS (
                    SELECT k.queue, k.key FROM {schema}.fair_key k
                    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM %2$s WHERE fairness_key IS NOT NULL%3$s)
                      AND k.active
                    FOR KEY SHARE OF k
                ), %1$sfair_activated AS (
                    INSERT INTO {schema}.fair_key AS k (queue, key, pass)
                    SELECT DISTINCT r.queue, r.fairness_key, %4$s
                    FROM %2$s r
                    WHERE r.fairness_key IS NOT NULL%5$s
                      AND NOT EXISTS (SELECT 1 FROM %1$sfair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
                    ON CONFLICT (queue, key) DO UPDATE
                        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
                )""".formatted(prefix, rows, ready, LOWEST_PASS.formatted("r.queue"), ready.replace("state", "r.state"));
    }

    /**
     * The CTEs of a LEASE claim that picks its jobs fairly, ending in {@code fair_picked} (id, key) and
     * {@code fair_charged}, which moves the passes of the keys it looked at. The keys' rows are locked
     * (FOR NO KEY UPDATE SKIP LOCKED: two claimers take different keys). A key with a cap counts its running
     * jobs, exactly: a key whose row another claim changed after this statement's snapshot was taken (its running
     * jobs invisible here) takes nothing this time.
     */
    String leasedCtes() {
        return "WITH " + SETTINGS + """
                , fair_candidates AS (
                    SELECT k.key, k.pass, (SELECT s.pass FROM {schema}.fair_key s WHERE s.queue = k.queue AND s.key = k.key) AS seen_pass,
                           %1$s AS weight, %2$s AS cap
                    %3$s
                    FOR NO KEY UPDATE OF k SKIP LOCKED
                ), fair_running AS (
                    SELECT r.fairness_key AS key, count(*) AS n FROM {schema}.job r
                    WHERE r.queue = :queue AND r.state = 'running'
                      AND r.fairness_key = ANY(ARRAY(SELECT key FROM fair_candidates WHERE cap IS NOT NULL))
                    GROUP BY r.fairness_key
                ), fair_rooms AS (
                    SELECT c.key, c.pass, c.weight,
                           CASE WHEN c.cap IS NULL THEN :limit
                                WHEN c.pass IS DISTINCT FROM c.seen_pass THEN -1
                                ELSE greatest(0, least(:limit, c.cap - coalesce(r.n, 0))) END AS room
                    FROM fair_candidates c LEFT JOIN fair_running r ON r.key = c.key
                )""".formatted(WEIGHT, CAP, CANDIDATES) + SHARES + PICKED.formatted("fair_shares", GROUP_TURN) + """
                , fair_charged AS (
                    UPDATE {schema}.fair_key k
                    SET pass = CASE WHEN coalesce(t.n, 0) > 0 THEN r.pass + t.n / r.weight
                                    ELSE greatest(k.pass, (SELECT max(b.pass) FROM {schema}.fair_key b
                                                           WHERE b.queue = :queue AND b.active AND NOT b.paused)) END,
                        drained = k.drained OR (coalesce(t.n, 0) = 0 AND r.room > 0),
                        updated_at = now()
                    FROM fair_rooms r LEFT JOIN fair_shares s ON s.key = r.key LEFT JOIN fair_taken t ON t.key = r.key
                    WHERE k.queue = :queue AND k.key = r.key
                      AND (coalesce(t.n, 0) > 0 OR r.room = 0 OR s.share > 0)
                    RETURNING k.key, (coalesce(t.n, 0) = 0 AND r.room > 0) AS emptied
                )""";
    }

    /**
     * The CTEs of a TRANSACTIONAL claim that picks its jobs fairly, ending in {@code fair_picked} (id, key) and
     * {@code fair_emptied} (the keys it found without ready jobs). It runs in the handlers' transaction, so it
     * locks no key row (the passes move at the end of the transaction, {@link #chargeStatement}); a key's cap is
     * a set of advisory slots, one per running job, held until the transaction ends (a rollback to the claim's
     * savepoint gives them back with the jobs).
     */
    String deletedCtes() {
        return "WITH " + SETTINGS + """
                , fair_candidates AS (
                    SELECT k.key, k.pass, %1$s AS weight, %2$s AS cap
                    %3$s
                ), fair_rooms AS (
                    SELECT c.key, c.pass, c.weight, CASE WHEN c.cap IS NULL THEN :limit ELSE least(:limit, c.cap) END AS room
                    FROM fair_candidates c
                )""".formatted(WEIGHT, CAP, CANDIDATES) + SHARES + """
                , fair_slots AS (
                    SELECT s.key,
                           CASE WHEN c.cap IS NULL THEN s.share
                                ELSE (SELECT count(*)::int FROM (
                                          SELECT 1 FROM generate_series(0, c.cap - 1) AS g(slot)
                                          WHERE pg_try_advisory_xact_lock(hashtext(:fair_lock || s.key), g.slot)
                                          LIMIT s.share) AS held) END AS share
                    FROM fair_shares s JOIN fair_candidates c ON c.key = s.key
                )""" + PICKED.formatted("fair_slots", GROUP_TURN) + """
                , fair_emptied AS (
                    SELECT s.key FROM fair_slots s LEFT JOIN fair_taken t ON t.key = s.key
                    WHERE s.share > 0 AND t.n IS NULL
                )""";
    }

    /**
     * Moves the passes of the keys a TRANSACTIONAL claim took jobs from ({@code :keys}, {@code :counts}; a count of
     * zero marks a key found empty), at the end of the handlers' transaction: the rows are locked in key order and
     * held only until the commit.
     */
    String chargeStatement() {
        return "WITH " + SETTINGS + """
                , charges AS (
                    SELECT * FROM unnest(:keys::text[], :counts::int[]) AS c(key, n)
                ), locked AS (
                    SELECT k.key, k.pass, %s AS weight FROM {schema}.fair_key k
                    WHERE k.queue = :queue AND k.key = ANY(:keys::text[])
                    ORDER BY k.key FOR NO KEY UPDATE OF k
                )
                UPDATE {schema}.fair_key k
                SET pass = CASE WHEN c.n > 0 THEN l.pass + c.n / l.weight
                                ELSE greatest(k.pass, (SELECT max(b.pass) FROM {schema}.fair_key b
                                                       WHERE b.queue = :queue AND b.active AND NOT b.paused)) END,
                    drained = k.drained OR c.n = 0, updated_at = now()
                FROM locked l JOIN charges c ON c.key = l.key
                WHERE k.queue = :queue AND k.key = l.key""".formatted(WEIGHT);
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
        return """
                UPDATE {schema}.fair_key k
                SET sweeping = false, drained = false, updated_at = now(),
                    active = EXISTS (SELECT 1 FROM {schema}.job j
                                     WHERE j.queue = k.queue AND j.fairness_key = k.key AND j.state = 'ready')
                          OR EXISTS (SELECT 1 FROM {schema}.job j
                                     WHERE j.queue = k.queue AND j.state = 'running' AND j.fairness_key = k.key)
                WHERE k.queue = :queue AND k.sweeping""";
    }

    /**
     * Activates every key of the queue that has ready jobs and is not active (a safety net, at a fair listener's
     * start and now and then while it idles: jobs made ready by a node that predates fairness, or while no fair
     * listener ran). Walks the distinct keys through the ready-key index, one probe per key.
     */
    String activateReadyStatement() {
        return """
                WITH RECURSIVE ready_keys(key) AS (
                    (SELECT fairness_key FROM {schema}.job
                     WHERE queue = :queue AND state = 'ready' AND fairness_key IS NOT NULL
                     ORDER BY fairness_key LIMIT 1)
                    UNION ALL
                    SELECT (SELECT j.fairness_key FROM {schema}.job j
                            WHERE j.queue = :queue AND j.state = 'ready' AND j.fairness_key IS NOT NULL
                              AND j.fairness_key > r.key
                            ORDER BY j.fairness_key LIMIT 1)
                    FROM ready_keys r WHERE r.key IS NOT NULL
                ), activated AS (
                    INSERT INTO {schema}.fair_key AS k (queue, key, pass)
                    SELECT :queue, key, %s FROM ready_keys WHERE key IS NOT NULL
                    ON CONFLICT (queue, key) DO UPDATE
                        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
                        WHERE NOT k.active
                    RETURNING 1
                )
                SELECT count(*) FROM activated""".formatted(LOWEST_PASS.formatted(":queue"));
    }
}
