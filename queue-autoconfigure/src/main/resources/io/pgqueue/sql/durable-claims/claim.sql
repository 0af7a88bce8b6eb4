-- pgqueue's statements: claim
--
-- Rendered from the code that composes them, for reading and review: do not edit. A change of the
-- code that changes a statement fails StatementCatalogueTests until this file is regenerated
-- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
-- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
-- as server logs, pg_stat_activity and pg_stat_statements show it.
--
-- Rendered with the schema "pgqueue" and pgqueue.listener.durable-claims=true, every other setting its default: only the
-- statements this setting changes, under the names of the statements they replace.

-- name: claim.lease
/* pgqueue:claim.lease */
/* pgqueue:promote */WITH promoted AS (
    UPDATE "pgqueue".job SET state = 'ready', debounce_key = NULL
    WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job
                         WHERE queue = :queue AND state = 'scheduled' AND run_at <= now()
                         ORDER BY run_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
    RETURNING queue
), counted_promote AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
)
SELECT count(*) FROM promoted;
/* pgqueue:claim.lease #2 */
/* pgqueue:claim_lease */WITH claimed AS (
    UPDATE "pgqueue".job j
    SET state = 'running', attempts = j.attempts + 1,
        max_attempts = coalesce(j.max_attempts, :default_max_attempts),
        locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
        attempted_at = now(), progress_percent = NULL, progress_message = NULL
    WHERE j.id = ANY(ARRAY(SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
    ORDER BY j.priority DESC, j.run_at, j.id LIMIT :limit FOR UPDATE SKIP LOCKED))
      AND EXISTS (SELECT 1 FROM "pgqueue".node n WHERE n.id = :node)

    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
              j.priority, j.workflow_id, j.batch_id, j.fairness_key
), counted_claim_lease AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, running)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key FROM claimed;

-- name: claim.lease-after
/* pgqueue:claim.lease-after */
/* pgqueue:promote */WITH promoted AS (
    UPDATE "pgqueue".job SET state = 'ready', debounce_key = NULL
    WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job
                         WHERE queue = :queue AND state = 'scheduled' AND run_at <= now()
                         ORDER BY run_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
    RETURNING queue
), counted_promote AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
)
SELECT count(*) FROM promoted;
/* pgqueue:claim.lease-after #2 */
/* pgqueue:claim_lease */WITH claimed AS (
    UPDATE "pgqueue".job j
    SET state = 'running', attempts = j.attempts + 1,
        max_attempts = coalesce(j.max_attempts, :default_max_attempts),
        locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
        attempted_at = now(), progress_percent = NULL, progress_message = NULL
    WHERE j.id = ANY(ARRAY(SELECT id FROM (SELECT id FROM (SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
      AND j.priority > :after_priority
    ORDER BY j.priority DESC, j.run_at, j.id LIMIT :limit FOR UPDATE SKIP LOCKED) AS higher
    UNION ALL
    SELECT id FROM (SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
      AND j.priority = :after_priority AND (j.run_at, j.id) > (:after_run_at::timestamptz, :after_id::bigint)
    ORDER BY j.run_at, j.id LIMIT :limit FOR UPDATE SKIP LOCKED) AS later) AS ready LIMIT :limit))
      AND EXISTS (SELECT 1 FROM "pgqueue".node n WHERE n.id = :node)

    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
              j.priority, j.workflow_id, j.batch_id, j.fairness_key
), counted_claim_lease AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, running)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key FROM claimed;

-- name: claim.fair-lease:10-of-16
/* pgqueue:claim.fair-lease:10-of-16 */
DO $$ BEGIN PERFORM set_config('plan_cache_mode', 'force_generic_plan', true); END $$;
/* pgqueue:claim.fair-lease:10-of-16 #2 */
/* pgqueue:claim_lease */WITH fair_settings AS (
    SELECT * FROM unnest(:fair_keys::text[], :fair_weights::float8[], :fair_caps::int[]) AS c(key, weight, cap)
), fair_candidates AS (
    SELECT k.key, k.pass, coalesce(k.weight, (SELECT c.weight FROM fair_settings c WHERE c.key = k.key), :fair_default_weight::float8) AS weight, coalesce((SELECT c.cap FROM fair_settings c WHERE c.key = k.key), :fair_default_cap::int) AS cap
    FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.active AND NOT k.drained AND NOT k.paused
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state q WHERE q.queue = :queue AND q.paused)
    ORDER BY k.pass, k.key LIMIT 16
), fair_capped AS (
    SELECT k.key, k.pass,
           (SELECT s.pass FROM "pgqueue".fair_key s WHERE s.queue = k.queue AND s.key = k.key) AS seen_pass
    FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.key = ANY(ARRAY(SELECT key FROM fair_candidates WHERE cap IS NOT NULL))
    ORDER BY k.key
    FOR NO KEY UPDATE OF k SKIP LOCKED
), fair_room AS (
    SELECT c.key, c.pass, c.weight, c.cap,
           CASE WHEN c.cap IS NULL THEN :limit
                WHEN l.key IS NULL OR l.pass IS DISTINCT FROM l.seen_pass THEN -1
                ELSE greatest(0, least(:limit, c.cap - (
                    SELECT count(*) FROM "pgqueue".job r
                    WHERE r.queue = :queue AND r.state = 'running' AND r.fairness_key = c.key))) END AS room
    FROM fair_candidates c LEFT JOIN fair_capped l ON l.key = c.key
), fair_rooms AS (
    SELECT c.*, CASE WHEN (SELECT count(*) FROM fair_candidates) = 1 THEN 10 + 1
         ELSE (SELECT count(*)::int FROM (
                   SELECT 1 FROM "pgqueue".job a
                   WHERE a.queue = :queue AND a.fairness_key = c.key AND a.state >= 'ready' AND a.state <= 'ready'
                   ORDER BY a.priority DESC, a.run_at, a.id LIMIT 10 + 1) AS ready) END AS ready FROM fair_room c
), fair_shares AS (
    SELECT key, count(*)::int AS share FROM (
        SELECT r.key, row_number() OVER (ORDER BY r.pass + g.j / r.weight, r.key) AS n
        FROM fair_rooms r CROSS JOIN LATERAL generate_series(1, least(r.room, r.ready)) AS g(j)) AS tags
    WHERE n <= :limit
    GROUP BY key
), fair_picked AS (
    SELECT p.id, s.key FROM fair_shares s CROSS JOIN LATERAL (
        SELECT j.id FROM "pgqueue".job j
        WHERE j.queue = :queue AND j.fairness_key = s.key AND j.state >= 'ready' AND j.state <= 'ready' AND (j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
        ORDER BY j.priority DESC, j.run_at, j.id LIMIT s.share FOR UPDATE SKIP LOCKED) AS p
    LIMIT 10
), fair_taken AS (
    SELECT key, count(*)::int AS n FROM fair_picked GROUP BY key
), fair_moves AS (
    SELECT r.key, r.weight, coalesce(t.n, 0) AS n, (r.room > 0 AND CASE WHEN (SELECT count(*) FROM fair_candidates) = 1 THEN coalesce(t.n, 0) = 0
                         ELSE coalesce(t.n, 0) >= r.ready END) AS emptied
    FROM fair_rooms r LEFT JOIN fair_taken t ON t.key = r.key
    WHERE r.room >= 0 AND ((r.room > 0 AND CASE WHEN (SELECT count(*) FROM fair_candidates) = 1 THEN coalesce(t.n, 0) = 0
                         ELSE coalesce(t.n, 0) >= r.ready END) OR ((t.n > 0 OR r.room = 0)
                                    AND (r.cap IS NOT NULL OR (SELECT count(*) FROM fair_candidates) > 1)))
), fair_locked AS (
    SELECT k.key FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.key = ANY(ARRAY(SELECT key FROM fair_moves))
    ORDER BY k.key FOR NO KEY UPDATE OF k
), fair_drainable AS (
    SELECT k.key FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.key = ANY(ARRAY(SELECT m.key FROM fair_locked x JOIN fair_moves m ON m.key = x.key WHERE m.emptied))
    FOR UPDATE OF k SKIP LOCKED
), fair_charged AS (
    UPDATE "pgqueue".fair_key k
    SET pass = CASE WHEN m.n > 0 THEN k.pass + m.n / m.weight
                    ELSE greatest(k.pass, (SELECT max(b.pass) FROM "pgqueue".fair_key b
                                           WHERE b.queue = :queue AND b.active AND NOT b.drained AND NOT b.paused)) END,
        drained = k.drained OR d.key IS NOT NULL, updated_at = now()
    FROM fair_locked x JOIN fair_moves m ON m.key = x.key LEFT JOIN fair_drainable d ON d.key = x.key
    WHERE k.queue = :queue AND k.key = x.key
    RETURNING k.key, d.key IS NOT NULL AS emptied
), fair_emptied AS (
    SELECT key FROM fair_charged WHERE emptied
), claimed AS (
    UPDATE "pgqueue".job j
    SET state = 'running', attempts = j.attempts + 1,
        max_attempts = coalesce(j.max_attempts, :default_max_attempts),
        locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
        attempted_at = now(), progress_percent = NULL, progress_message = NULL
    WHERE j.id = ANY(ARRAY(SELECT id FROM fair_picked))
      AND EXISTS (SELECT 1 FROM "pgqueue".node n WHERE n.id = :node)

    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
              j.priority, j.workflow_id, j.batch_id, j.fairness_key
), counted_claim_lease AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, running)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT c.id, c.queue, c.payload, c.payload_type, c.headers, c.attempts, c.max_attempts, c.created_at, c.run_at, c.claimed_at, c.timeout_ms, c.priority, c.workflow_id, c.batch_id, c.fairness_key, e.keys AS emptied, e.alone FROM (SELECT array_agg(key) AS keys, (SELECT count(*) = 1 AND bool_and(cap IS NULL) FROM fair_candidates) AS alone FROM fair_emptied) e LEFT JOIN claimed c ON true;

-- name: claim.fair-lease-alone:10
/* pgqueue:claim.fair-lease-alone:10 */
/* pgqueue:promote */WITH promoted AS (
    UPDATE "pgqueue".job SET state = 'ready', debounce_key = NULL
    WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job
                         WHERE queue = :queue AND state = 'scheduled' AND run_at <= now()
                         ORDER BY run_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
    RETURNING queue, fairness_key
), counted_promote AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM promoted WHERE fairness_key IS NOT NULL)
      AND k.active
    FOR KEY SHARE OF k
), fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM promoted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT count(*) FROM promoted;
/* pgqueue:claim.fair-lease-alone:10 #2 */
DO $$ BEGIN PERFORM set_config('plan_cache_mode', 'force_generic_plan', true); END $$;
/* pgqueue:claim.fair-lease-alone:10 #3 */
/* pgqueue:claim_lease */WITH fair_settings AS (
    SELECT * FROM unnest(:fair_keys::text[], :fair_weights::float8[], :fair_caps::int[]) AS c(key, weight, cap)
), fair_alone AS (
    SELECT k.key FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.active AND NOT k.drained AND NOT k.paused
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state q WHERE q.queue = :queue AND q.paused)
    LIMIT 2
), fair_lone AS (
    SELECT k.key FROM fair_alone k
    WHERE (SELECT count(*) FROM fair_alone) = 1 AND coalesce((SELECT c.cap FROM fair_settings c WHERE c.key = k.key), :fair_default_cap::int) IS NULL
), fair_picked AS (
    SELECT j.id, j.fairness_key AS key FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.fairness_key = (SELECT key FROM fair_lone) AND j.state >= 'ready' AND j.state <= 'ready' AND (j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
    ORDER BY j.priority DESC, j.run_at, j.id LIMIT 10 FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE "pgqueue".job j
    SET state = 'running', attempts = j.attempts + 1,
        max_attempts = coalesce(j.max_attempts, :default_max_attempts),
        locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
        attempted_at = now(), progress_percent = NULL, progress_message = NULL
    WHERE j.id = ANY(ARRAY(SELECT id FROM fair_picked))
      AND EXISTS (SELECT 1 FROM "pgqueue".node n WHERE n.id = :node)

    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
              j.priority, j.workflow_id, j.batch_id, j.fairness_key
), counted_claim_lease AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, running)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key FROM claimed;

-- name: claim.lease:10
/* pgqueue:claim.lease:10 */
/* pgqueue:promote */WITH promoted AS (
    UPDATE "pgqueue".job SET state = 'ready', debounce_key = NULL
    WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job
                         WHERE queue = :queue AND state = 'scheduled' AND run_at <= now()
                         ORDER BY run_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
    RETURNING queue
), counted_promote AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
)
SELECT count(*) FROM promoted;
/* pgqueue:claim.lease:10 #2 */
/* pgqueue:claim_lease */WITH claimed AS (
    UPDATE "pgqueue".job j
    SET state = 'running', attempts = j.attempts + 1,
        max_attempts = coalesce(j.max_attempts, :default_max_attempts),
        locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
        attempted_at = now(), progress_percent = NULL, progress_message = NULL
    WHERE j.id = ANY(ARRAY(SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
    ORDER BY j.priority DESC, j.run_at, j.id LIMIT 10 FOR UPDATE SKIP LOCKED))
      AND EXISTS (SELECT 1 FROM "pgqueue".node n WHERE n.id = :node)

    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
              j.priority, j.workflow_id, j.batch_id, j.fairness_key
), counted_claim_lease AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, running)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key FROM claimed;

-- name: claim.lease-capped:10
/* pgqueue:claim.lease-capped:10 */
SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext(:key))) AS locked;
/* pgqueue:claim.lease-capped:10 #2 */
SELECT count(*) FROM "pgqueue".job WHERE queue = :queue AND state = 'running';
/* pgqueue:claim.lease-capped:10 #3 */
/* pgqueue:promote */WITH promoted AS (
    UPDATE "pgqueue".job SET state = 'ready', debounce_key = NULL
    WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job
                         WHERE queue = :queue AND state = 'scheduled' AND run_at <= now()
                         ORDER BY run_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
    RETURNING queue
), counted_promote AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
)
SELECT count(*) FROM promoted;
/* pgqueue:claim.lease-capped:10 #4 */
/* pgqueue:claim_lease */WITH claimed AS (
    UPDATE "pgqueue".job j
    SET state = 'running', attempts = j.attempts + 1,
        max_attempts = coalesce(j.max_attempts, :default_max_attempts),
        locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
        attempted_at = now(), progress_percent = NULL, progress_message = NULL
    WHERE j.id = ANY(ARRAY(SELECT id FROM (SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
    ORDER BY j.priority DESC, j.run_at, j.id LIMIT 10 FOR UPDATE SKIP LOCKED) AS ready
    LIMIT greatest(0, :max_running - (SELECT count(*) FROM "pgqueue".job WHERE queue = :queue AND state = 'running'))))
      AND EXISTS (SELECT 1 FROM "pgqueue".node n WHERE n.id = :node)

    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
              j.priority, j.workflow_id, j.batch_id, j.fairness_key
), counted_claim_lease AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, running)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key FROM claimed;

-- name: claim.lease-after:10
/* pgqueue:claim.lease-after:10 */
/* pgqueue:promote */WITH promoted AS (
    UPDATE "pgqueue".job SET state = 'ready', debounce_key = NULL
    WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job
                         WHERE queue = :queue AND state = 'scheduled' AND run_at <= now()
                         ORDER BY run_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
    RETURNING queue
), counted_promote AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
)
SELECT count(*) FROM promoted;
/* pgqueue:claim.lease-after:10 #2 */
/* pgqueue:claim_lease */WITH claimed AS (
    UPDATE "pgqueue".job j
    SET state = 'running', attempts = j.attempts + 1,
        max_attempts = coalesce(j.max_attempts, :default_max_attempts),
        locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
        attempted_at = now(), progress_percent = NULL, progress_message = NULL
    WHERE j.id = ANY(ARRAY(SELECT id FROM (SELECT id FROM (SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
      AND j.priority > :after_priority
    ORDER BY j.priority DESC, j.run_at, j.id LIMIT 10 FOR UPDATE SKIP LOCKED) AS higher
    UNION ALL
    SELECT id FROM (SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
      AND j.priority = :after_priority AND (j.run_at, j.id) > (:after_run_at::timestamptz, :after_id::bigint)
    ORDER BY j.run_at, j.id LIMIT 10 FOR UPDATE SKIP LOCKED) AS later) AS ready LIMIT 10))
      AND EXISTS (SELECT 1 FROM "pgqueue".node n WHERE n.id = :node)

    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
              j.priority, j.workflow_id, j.batch_id, j.fairness_key
), counted_claim_lease AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, running)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key FROM claimed;

-- name: claim.lease-capped-after:10
/* pgqueue:claim.lease-capped-after:10 */
SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext(:key))) AS locked;
/* pgqueue:claim.lease-capped-after:10 #2 */
SELECT count(*) FROM "pgqueue".job WHERE queue = :queue AND state = 'running';
/* pgqueue:claim.lease-capped-after:10 #3 */
/* pgqueue:promote */WITH promoted AS (
    UPDATE "pgqueue".job SET state = 'ready', debounce_key = NULL
    WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job
                         WHERE queue = :queue AND state = 'scheduled' AND run_at <= now()
                         ORDER BY run_at LIMIT 1000 FOR UPDATE SKIP LOCKED))
    RETURNING queue
), counted_promote AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, -count(*), count(*) FROM promoted GROUP BY queue
)
SELECT count(*) FROM promoted;
/* pgqueue:claim.lease-capped-after:10 #4 */
/* pgqueue:claim_lease */WITH claimed AS (
    UPDATE "pgqueue".job j
    SET state = 'running', attempts = j.attempts + 1,
        max_attempts = coalesce(j.max_attempts, :default_max_attempts),
        locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
        attempted_at = now(), progress_percent = NULL, progress_message = NULL
    WHERE j.id = ANY(ARRAY(SELECT id FROM (SELECT id FROM (SELECT id FROM (SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
      AND j.priority > :after_priority
    ORDER BY j.priority DESC, j.run_at, j.id LIMIT 10 FOR UPDATE SKIP LOCKED) AS higher
    UNION ALL
    SELECT id FROM (SELECT id FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state s WHERE s.queue = :queue AND s.paused)
      AND(j.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM "pgqueue".job g
            WHERE g.queue = j.queue AND g.group_key = j.group_key AND g.state <> 'dead' AND g.state <> 'waiting'
              AND g.id <> j.id
              AND (g.state = 'running'
                   OR (g.id < j.id AND (g.state = 'ready' OR g.attempts = 0 OR :failures_block::boolean)))))
      AND j.priority = :after_priority AND (j.run_at, j.id) > (:after_run_at::timestamptz, :after_id::bigint)
    ORDER BY j.run_at, j.id LIMIT 10 FOR UPDATE SKIP LOCKED) AS later) AS ready LIMIT 10) AS ready
    LIMIT greatest(0, :max_running - (SELECT count(*) FROM "pgqueue".job WHERE queue = :queue AND state = 'running'))))
      AND EXISTS (SELECT 1 FROM "pgqueue".node n WHERE n.id = :node)

    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
              j.priority, j.workflow_id, j.batch_id, j.fairness_key
), counted_claim_lease AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, running)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key FROM claimed;
