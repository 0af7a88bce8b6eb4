-- pgqueue's statements: claim
--
-- Rendered from the code that composes them, for reading and review: do not edit. A change of the
-- code that changes a statement fails StatementCatalogueTests until this file is regenerated
-- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
-- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
-- as server logs, pg_stat_activity and pg_stat_statements show it.
--
-- Rendered with the schema "pgqueue" and pgqueue.history.enabled=true, every other setting its default: only the
-- statements this setting changes, under the names of the statements they replace.

-- name: claim.fair-and-delete-alone:10
/* pgqueue:claim.fair-and-delete-alone:10 */
SET LOCAL plan_cache_mode = force_generic_plan;
/* pgqueue:claim.fair-and-delete-alone:10 #2 */
/* pgqueue:claim_delete */WITH fair_settings AS (
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
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM fair_picked))
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts + 1 AS attempts, coalesce(j.max_attempts, :default_max_attempts) AS max_attempts,
              j.created_at, j.run_at, j.group_key, j.dedup_key, now() AS claimed_at, j.timeout_ms,
              now() AS attempted_at, j.last_error, 'completed' AS state, j.priority, j.workflow_id, j.batch_id,
              j.fairness_key, json_build_array(j.priority, j.max_attempts, j.dedup_key, j.group_key, j.locked_by, j.lease_until, j.last_error, j.dead_at, j.cancel_requested, j.attempted_at, j.progress_percent, j.progress_message, j.debounce_key, j.pending_parents)::text AS rest
), archived AS (
    INSERT INTO "pgqueue".job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                      dedup_key, created_at, run_at, attempted_at, last_error, state, output,
                                      workflow_id, batch_id)
    SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
           f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, NULL::jsonb, f.workflow_id,
           f.batch_id
    FROM claimed f
), counted_claim_delete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key, rest FROM claimed;
/* pgqueue:claim.fair-and-delete-alone:10 #3 */
SET LOCAL plan_cache_mode TO DEFAULT;
/* pgqueue:claim.fair-and-delete-alone:10 #4 */
SAVEPOINT pgqueue_claim;

-- name: claim.fair-and-delete:10-of-16
/* pgqueue:claim.fair-and-delete:10-of-16 */
SAVEPOINT pgqueue_claim;
/* pgqueue:claim.fair-and-delete:10-of-16 #2 */
SET LOCAL plan_cache_mode = force_generic_plan;
/* pgqueue:claim.fair-and-delete:10-of-16 #3 */
/* pgqueue:claim_delete */WITH fair_settings AS (
    SELECT * FROM unnest(:fair_keys::text[], :fair_weights::float8[], :fair_caps::int[]) AS c(key, weight, cap)
), fair_candidates AS (
    SELECT k.key, k.pass, coalesce(k.weight, (SELECT c.weight FROM fair_settings c WHERE c.key = k.key), :fair_default_weight::float8) AS weight, coalesce((SELECT c.cap FROM fair_settings c WHERE c.key = k.key), :fair_default_cap::int) AS cap
    FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.active AND NOT k.drained AND NOT k.paused
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".queue_state q WHERE q.queue = :queue AND q.paused)
    ORDER BY k.pass, k.key LIMIT 16
), fair_room AS (
    SELECT c.*, CASE WHEN c.cap IS NULL THEN :limit ELSE least(:limit, c.cap) END AS room
    FROM fair_candidates c
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
), fair_slots AS (
    SELECT s.key,
           CASE WHEN c.cap IS NULL THEN s.share
                ELSE (SELECT count(*)::int FROM (
                          SELECT 1 FROM generate_series(0, c.cap - 1) AS g(slot)
                          WHERE pg_try_advisory_xact_lock(hashtext(:fair_lock || s.key), g.slot)
                          LIMIT s.share) AS held) END AS share
    FROM fair_shares s JOIN fair_candidates c ON c.key = s.key
), fair_picked AS (
    SELECT p.id, s.key FROM fair_slots s CROSS JOIN LATERAL (
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
), fair_emptied AS (
    SELECT r.key FROM fair_rooms r LEFT JOIN fair_taken t ON t.key = r.key WHERE (r.room > 0 AND CASE WHEN (SELECT count(*) FROM fair_candidates) = 1 THEN coalesce(t.n, 0) = 0
                         ELSE coalesce(t.n, 0) >= r.ready END)
), claimed AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM fair_picked))
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts + 1 AS attempts, coalesce(j.max_attempts, :default_max_attempts) AS max_attempts,
              j.created_at, j.run_at, j.group_key, j.dedup_key, now() AS claimed_at, j.timeout_ms,
              now() AS attempted_at, j.last_error, 'completed' AS state, j.priority, j.workflow_id, j.batch_id,
              j.fairness_key
), archived AS (
    INSERT INTO "pgqueue".job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                      dedup_key, created_at, run_at, attempted_at, last_error, state, output,
                                      workflow_id, batch_id)
    SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
           f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, NULL::jsonb, f.workflow_id,
           f.batch_id
    FROM claimed f
), counted_claim_delete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT c.id, c.queue, c.payload, c.payload_type, c.headers, c.attempts, c.max_attempts, c.created_at, c.run_at, c.claimed_at, c.timeout_ms, c.priority, c.workflow_id, c.batch_id, c.fairness_key, e.keys AS emptied, e.alone FROM (SELECT array_agg(key) AS keys, (SELECT count(*) = 1 AND bool_and(cap IS NULL) FROM fair_candidates) AS alone FROM fair_emptied) e LEFT JOIN claimed c ON true;
/* pgqueue:claim.fair-and-delete:10-of-16 #4 */
SET LOCAL plan_cache_mode TO DEFAULT;

-- name: claim.and-delete
/* pgqueue:claim.and-delete */
/* pgqueue:claim_delete */WITH claimed AS (
    DELETE FROM "pgqueue".job j
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
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts + 1 AS attempts, coalesce(j.max_attempts, :default_max_attempts) AS max_attempts,
              j.created_at, j.run_at, j.group_key, j.dedup_key, now() AS claimed_at, j.timeout_ms,
              now() AS attempted_at, j.last_error, 'completed' AS state, j.priority, j.workflow_id, j.batch_id,
              j.fairness_key, json_build_array(j.priority, j.max_attempts, j.dedup_key, j.group_key, j.locked_by, j.lease_until, j.last_error, j.dead_at, j.cancel_requested, j.attempted_at, j.progress_percent, j.progress_message, j.debounce_key, j.pending_parents)::text AS rest
), archived AS (
    INSERT INTO "pgqueue".job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                      dedup_key, created_at, run_at, attempted_at, last_error, state, output,
                                      workflow_id, batch_id)
    SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
           f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, NULL::jsonb, f.workflow_id,
           f.batch_id
    FROM claimed f
), counted_claim_delete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key, rest FROM claimed;
/* pgqueue:claim.and-delete #2 */
SAVEPOINT pgqueue_claim;

-- name: claim.and-delete-after
/* pgqueue:claim.and-delete-after */
/* pgqueue:claim_delete */WITH claimed AS (
    DELETE FROM "pgqueue".job j
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
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts + 1 AS attempts, coalesce(j.max_attempts, :default_max_attempts) AS max_attempts,
              j.created_at, j.run_at, j.group_key, j.dedup_key, now() AS claimed_at, j.timeout_ms,
              now() AS attempted_at, j.last_error, 'completed' AS state, j.priority, j.workflow_id, j.batch_id,
              j.fairness_key, json_build_array(j.priority, j.max_attempts, j.dedup_key, j.group_key, j.locked_by, j.lease_until, j.last_error, j.dead_at, j.cancel_requested, j.attempted_at, j.progress_percent, j.progress_message, j.debounce_key, j.pending_parents)::text AS rest
), archived AS (
    INSERT INTO "pgqueue".job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                      dedup_key, created_at, run_at, attempted_at, last_error, state, output,
                                      workflow_id, batch_id)
    SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
           f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, NULL::jsonb, f.workflow_id,
           f.batch_id
    FROM claimed f
), counted_claim_delete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key, rest FROM claimed;
/* pgqueue:claim.and-delete-after #2 */
SAVEPOINT pgqueue_claim;

-- name: claim.and-delete:10
/* pgqueue:claim.and-delete:10 */
/* pgqueue:claim_delete */WITH claimed AS (
    DELETE FROM "pgqueue".job j
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
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts + 1 AS attempts, coalesce(j.max_attempts, :default_max_attempts) AS max_attempts,
              j.created_at, j.run_at, j.group_key, j.dedup_key, now() AS claimed_at, j.timeout_ms,
              now() AS attempted_at, j.last_error, 'completed' AS state, j.priority, j.workflow_id, j.batch_id,
              j.fairness_key, json_build_array(j.priority, j.max_attempts, j.dedup_key, j.group_key, j.locked_by, j.lease_until, j.last_error, j.dead_at, j.cancel_requested, j.attempted_at, j.progress_percent, j.progress_message, j.debounce_key, j.pending_parents)::text AS rest
), archived AS (
    INSERT INTO "pgqueue".job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                      dedup_key, created_at, run_at, attempted_at, last_error, state, output,
                                      workflow_id, batch_id)
    SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
           f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, NULL::jsonb, f.workflow_id,
           f.batch_id
    FROM claimed f
), counted_claim_delete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key, rest FROM claimed;
/* pgqueue:claim.and-delete:10 #2 */
SAVEPOINT pgqueue_claim;

-- name: claim.and-delete-after:10
/* pgqueue:claim.and-delete-after:10 */
/* pgqueue:claim_delete */WITH claimed AS (
    DELETE FROM "pgqueue".job j
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
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
              j.attempts + 1 AS attempts, coalesce(j.max_attempts, :default_max_attempts) AS max_attempts,
              j.created_at, j.run_at, j.group_key, j.dedup_key, now() AS claimed_at, j.timeout_ms,
              now() AS attempted_at, j.last_error, 'completed' AS state, j.priority, j.workflow_id, j.batch_id,
              j.fairness_key, json_build_array(j.priority, j.max_attempts, j.dedup_key, j.group_key, j.locked_by, j.lease_until, j.last_error, j.dead_at, j.cancel_requested, j.attempted_at, j.progress_percent, j.progress_message, j.debounce_key, j.pending_parents)::text AS rest
), archived AS (
    INSERT INTO "pgqueue".job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                      dedup_key, created_at, run_at, attempted_at, last_error, state, output,
                                      workflow_id, batch_id)
    SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
           f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, NULL::jsonb, f.workflow_id,
           f.batch_id
    FROM claimed f
), counted_claim_delete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -count(*), count(*) FROM claimed GROUP BY queue
)
SELECT id, queue, payload, payload_type, headers, attempts, max_attempts, created_at, run_at, claimed_at, timeout_ms, priority, workflow_id, batch_id, fairness_key, rest FROM claimed;
/* pgqueue:claim.and-delete-after:10 #2 */
SAVEPOINT pgqueue_claim;

-- name: claim.complete-then-lease-capped:1
/* pgqueue:claim.complete-then-lease-capped:1 */
/* pgqueue:complete */WITH done AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = :id AND j.locked_by = :node AND ((j.id, j.attempts) IN (SELECT * FROM unnest(:ids::bigint[], :attempts::int[]))) IS TRUE
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id,
              CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'completed' END AS state
), archived AS (
    INSERT INTO "pgqueue".job_history (id, queue, payload, payload_type, headers, attempts, group_key,
                                      dedup_key, created_at, run_at, attempted_at, last_error, state, output,
                                      workflow_id, batch_id)
    SELECT f.id, f.queue, f.payload::jsonb, f.payload_type, f.headers::jsonb, f.attempts, f.group_key,
           f.dedup_key, f.created_at, f.run_at, f.attempted_at, f.last_error, f.state, o.output::jsonb, f.workflow_id,
           f.batch_id
    FROM done f LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = f.id
), counted_complete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, completed, cancelled)
    SELECT queue, -count(*), count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'cancelled') FROM done GROUP BY queue
)
SELECT count(*) FROM done;
/* pgqueue:claim.complete-then-lease-capped:1 #2 */
SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext(:key))) AS locked;
/* pgqueue:claim.complete-then-lease-capped:1 #3 */
SELECT count(*) FROM "pgqueue".job WHERE queue = :queue AND state = 'running';
/* pgqueue:claim.complete-then-lease-capped:1 #4 */
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
/* pgqueue:claim.complete-then-lease-capped:1 #5 */
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
    ORDER BY j.priority DESC, j.run_at, j.id LIMIT 1 FOR UPDATE SKIP LOCKED) AS ready
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
