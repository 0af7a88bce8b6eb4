-- pgqueue's statements: enqueue
--
-- Rendered from the code that composes them, for reading and review: do not edit. A change of the
-- code that changes a statement fails StatementCatalogueTests until this file is regenerated
-- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
-- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
-- as server logs, pg_stat_activity and pg_stat_statements show it.
--
-- Rendered with the schema "pgqueue" and the default settings; the statements that another setting
-- changes are in that setting's folder. A claim is rendered with its limit as a parameter and at
-- a size of 10: a listener's claims of other sizes have their size written in the same way
-- (name:size). Statements whose text carries values computed at run time (DDL takes no
-- parameters) are shown with example values.

-- name: enqueue.single
/* pgqueue:enqueue.single */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
)
SELECT id FROM inserted;

-- name: enqueue.single+keyed
/* pgqueue:enqueue.single+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:single
/* pgqueue:enqueue.to-batch:single */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:single+keyed
/* pgqueue:enqueue.to-batch:single+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.single+window
/* pgqueue:enqueue.single+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
)
SELECT id FROM inserted;

-- name: enqueue.single+window+keyed
/* pgqueue:enqueue.single+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:single+window
/* pgqueue:enqueue.to-batch:single+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:single+window+keyed
/* pgqueue:enqueue.to-batch:single+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.single+notify
/* pgqueue:enqueue.single+notify */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.single+notify+keyed
/* pgqueue:enqueue.single+notify+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:single+notify
/* pgqueue:enqueue.to-batch:single+notify */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:single+notify+keyed
/* pgqueue:enqueue.to-batch:single+notify+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.single+notify+window
/* pgqueue:enqueue.single+notify+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.single+notify+window+keyed
/* pgqueue:enqueue.single+notify+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:single+notify+window
/* pgqueue:enqueue.to-batch:single+notify+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:single+notify+window+keyed
/* pgqueue:enqueue.to-batch:single+notify+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.uniform
/* pgqueue:enqueue.uniform */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
)
SELECT id FROM inserted;

-- name: enqueue.uniform+keyed
/* pgqueue:enqueue.uniform+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:uniform
/* pgqueue:enqueue.to-batch:uniform */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:uniform+keyed
/* pgqueue:enqueue.to-batch:uniform+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.uniform+window
/* pgqueue:enqueue.uniform+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
)
SELECT id FROM inserted;

-- name: enqueue.uniform+window+keyed
/* pgqueue:enqueue.uniform+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:uniform+window
/* pgqueue:enqueue.to-batch:uniform+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:uniform+window+keyed
/* pgqueue:enqueue.to-batch:uniform+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.uniform+notify
/* pgqueue:enqueue.uniform+notify */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.uniform+notify+keyed
/* pgqueue:enqueue.uniform+notify+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:uniform+notify
/* pgqueue:enqueue.to-batch:uniform+notify */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:uniform+notify+keyed
/* pgqueue:enqueue.to-batch:uniform+notify+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.uniform+notify+window
/* pgqueue:enqueue.uniform+notify+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.uniform+notify+window+keyed
/* pgqueue:enqueue.uniform+notify+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:uniform+notify+window
/* pgqueue:enqueue.to-batch:uniform+notify+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:uniform+notify+window+keyed
/* pgqueue:enqueue.to-batch:uniform+notify+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN (VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS o) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.mixed
/* pgqueue:enqueue.mixed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
)
SELECT id FROM inserted;

-- name: enqueue.mixed+keyed
/* pgqueue:enqueue.mixed+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[], :fairness_key::text[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:mixed
/* pgqueue:enqueue.to-batch:mixed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:mixed+keyed
/* pgqueue:enqueue.to-batch:mixed+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[], :fairness_key::text[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.mixed+window
/* pgqueue:enqueue.mixed+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
)
SELECT id FROM inserted;

-- name: enqueue.mixed+window+keyed
/* pgqueue:enqueue.mixed+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[], :fairness_key::text[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:mixed+window
/* pgqueue:enqueue.to-batch:mixed+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
)
SELECT id FROM inserted;

-- name: enqueue.to-batch:mixed+window+keyed
/* pgqueue:enqueue.to-batch:mixed+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[], :fairness_key::text[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
)
SELECT id FROM inserted;

-- name: enqueue.mixed+notify
/* pgqueue:enqueue.mixed+notify */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.mixed+notify+keyed
/* pgqueue:enqueue.mixed+notify+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[], :fairness_key::text[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:mixed+notify
/* pgqueue:enqueue.to-batch:mixed+notify */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:mixed+notify+keyed
/* pgqueue:enqueue.to-batch:mixed+notify+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[], :fairness_key::text[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.mixed+notify+window
/* pgqueue:enqueue.mixed+notify+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.mixed+notify+window+keyed
/* pgqueue:enqueue.mixed+notify+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[], :fairness_key::text[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:mixed+notify+window
/* pgqueue:enqueue.to-batch:mixed+notify+window */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.to-batch:mixed+notify+window+keyed
/* pgqueue:enqueue.to-batch:mixed+notify+window+keyed */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], :group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[], :fairness_key::text[]) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), windowed AS (
    INSERT INTO "pgqueue".dedup_window AS w (queue, dedup_key, expires_at)
    SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
    FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "pgqueue".job live
                      WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
    ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
    RETURNING queue, dedup_key
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms, batch_id, fairness_key)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, :batch_id::bigint, fairness_key
    FROM input i
    WHERE i.dedup_for_ms IS NULL
       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state, batch_id, fairness_key
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'none' AS was, 'active' AS now_is
    FROM inserted WHERE batch_id IS NOT NULL
), b_changes AS (
    SELECT batch_id, slot,
           sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
           sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
           sum((now_is = 'dead')::int) AS deaths,
           sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
    FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
      AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
    ORDER BY s.batch_id, s.slot FOR UPDATE
), b_slots AS (
    UPDATE "pgqueue".batch_slot s
    SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
        deaths = s.deaths + c.deaths, failures = s.failures + c.failures
    FROM b_changes c
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
      AND s.slot = c.slot
    RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
              c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures
), b_counted AS (
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is) AS m
    GROUP BY batch_id
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL)
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
    FROM inserted r
    WHERE r.fairness_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT id FROM inserted LEFT JOIN notified ON true;

-- name: enqueue.debounced
/* pgqueue:enqueue.debounced */
WITH input AS (
    SELECT :queue::text AS queue, i.*,
           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
    FROM (VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, :delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, :dedup_for_ms::bigint, :fairness_key::text)) AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                 group_key, timeout_ms, dedup_for_ms, fairness_key)
), upserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job AS j (queue, state, priority, run_at, payload, payload_type, headers,
                                   max_attempts, group_key, timeout_ms, debounce_key, fairness_key)
    SELECT queue, 'scheduled', priority, due, payload::jsonb, payload_type, headers::jsonb,
           max_attempts, group_key, timeout_ms, :debounce_key, fairness_key
    FROM input
    ON CONFLICT (queue, debounce_key) WHERE state = 'scheduled' AND debounce_key IS NOT NULL
    DO UPDATE SET payload = excluded.payload, payload_type = excluded.payload_type,
                  headers = excluded.headers, priority = excluded.priority, run_at = excluded.run_at,
                  max_attempts = excluded.max_attempts, group_key = excluded.group_key,
                  timeout_ms = excluded.timeout_ms
    RETURNING id, queue, state, (xmax = 0) AS inserted
), inserted AS (
    SELECT id, queue, state FROM upserted WHERE inserted
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
)
SELECT id, inserted FROM upserted;

-- name: enqueue.expire-dedup-windows
/* pgqueue:enqueue.expire-dedup-windows */
WITH expired AS (
    DELETE FROM "pgqueue".dedup_window WHERE (queue, dedup_key) IN (
        SELECT queue, dedup_key FROM "pgqueue".dedup_window WHERE expires_at < now()
        ORDER BY expires_at LIMIT :limit FOR UPDATE SKIP LOCKED)
    RETURNING queue
)
SELECT count(*) FROM expired;

-- name: enqueue.find-live-by-dedup-key
/* pgqueue:enqueue.find-live-by-dedup-key */
SELECT id FROM "pgqueue".job WHERE queue = :queue AND dedup_key = :dedup_key AND state <> 'dead';
