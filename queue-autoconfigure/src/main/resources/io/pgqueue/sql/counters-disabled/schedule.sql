-- pgqueue's statements: schedule
--
-- Rendered from the code that composes them, for reading and review: do not edit. A change of the
-- code that changes a statement fails StatementCatalogueTests until this file is regenerated
-- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
-- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
-- as server logs, pg_stat_activity and pg_stat_statements show it.
--
-- Rendered with the schema "pgqueue" and pgqueue.counters.enabled=false, every other setting its default: only the
-- statements this setting changes, under the names of the statements they replace.

-- name: schedule.fire
/* pgqueue:schedule.fire */
WITH advanced AS (
    UPDATE "pgqueue".schedule SET next_run_at = :next, last_run_at = :tick, updated_at = now()
    WHERE name = :name AND next_run_at = :expected
      AND last_run_at IS NOT DISTINCT FROM :expected_last::timestamptz
    RETURNING name, queue, payload, payload_type
), input AS (
    SELECT queue, coalesce(payload, '{}'::jsonb) AS payload, payload_type,
           jsonb_build_object('schedule', name, 'tick', :tick_label::text) AS headers,
           0::smallint AS priority, now() AS due, NULL::int AS max_attempts, :dedup_key::text AS dedup_key,
           NULL::text AS group_key, NULL::bigint AS timeout_ms, :dedup_for_ms::bigint AS dedup_for_ms
    FROM advanced WHERE :enqueue::boolean
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
)
SELECT CASE WHEN :enqueue::boolean THEN (SELECT count(*) FROM inserted) ELSE (SELECT count(*) FROM advanced) END AS fired;

-- name: schedule.fire+notify
/* pgqueue:schedule.fire+notify */
WITH advanced AS (
    UPDATE "pgqueue".schedule SET next_run_at = :next, last_run_at = :tick, updated_at = now()
    WHERE name = :name AND next_run_at = :expected
      AND last_run_at IS NOT DISTINCT FROM :expected_last::timestamptz
    RETURNING name, queue, payload, payload_type
), input AS (
    SELECT queue, coalesce(payload, '{}'::jsonb) AS payload, payload_type,
           jsonb_build_object('schedule', name, 'tick', :tick_label::text) AS headers,
           0::smallint AS priority, now() AS due, NULL::int AS max_attempts, :dedup_key::text AS dedup_key,
           NULL::text AS group_key, NULL::bigint AS timeout_ms, :dedup_for_ms::bigint AS dedup_for_ms
    FROM advanced WHERE :enqueue::boolean
), inserted AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, dedup_key, group_key, timeout_ms)
    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
    FROM input i
    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
    RETURNING id, queue, state
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT CASE WHEN :enqueue::boolean THEN (SELECT count(*) FROM inserted) ELSE (SELECT count(*) FROM advanced) END + 0 * (SELECT count(*) FROM notified) AS fired;

-- name: schedule.fire+triggered
/* pgqueue:schedule.fire+triggered */
WITH advanced AS (
    UPDATE "pgqueue".schedule SET next_run_at = :next, last_run_at = :tick, updated_at = now()
    WHERE name = :name AND next_run_at = :expected
      AND last_run_at IS NOT DISTINCT FROM :expected_last::timestamptz
    RETURNING name, queue, payload, payload_type
), input AS (
    SELECT queue, coalesce(payload, '{}'::jsonb) AS payload, payload_type,
           jsonb_build_object('schedule', name, 'tick', :tick_label::text) AS headers,
           0::smallint AS priority, now() AS due, NULL::int AS max_attempts, :dedup_key::text AS dedup_key,
           NULL::text AS group_key, NULL::bigint AS timeout_ms, :dedup_for_ms::bigint AS dedup_for_ms
    FROM advanced WHERE :enqueue::boolean
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
)
SELECT CASE WHEN :enqueue::boolean THEN (SELECT count(*) FROM inserted) ELSE (SELECT count(*) FROM advanced) END AS fired;

-- name: schedule.fire+notify+triggered
/* pgqueue:schedule.fire+notify+triggered */
WITH advanced AS (
    UPDATE "pgqueue".schedule SET next_run_at = :next, last_run_at = :tick, updated_at = now()
    WHERE name = :name AND next_run_at = :expected
      AND last_run_at IS NOT DISTINCT FROM :expected_last::timestamptz
    RETURNING name, queue, payload, payload_type
), input AS (
    SELECT queue, coalesce(payload, '{}'::jsonb) AS payload, payload_type,
           jsonb_build_object('schedule', name, 'tick', :tick_label::text) AS headers,
           0::smallint AS priority, now() AS due, NULL::int AS max_attempts, :dedup_key::text AS dedup_key,
           NULL::text AS group_key, NULL::bigint AS timeout_ms, :dedup_for_ms::bigint AS dedup_for_ms
    FROM advanced WHERE :enqueue::boolean
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
), notified AS (
    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
)
SELECT CASE WHEN :enqueue::boolean THEN (SELECT count(*) FROM inserted) ELSE (SELECT count(*) FROM advanced) END + 0 * (SELECT count(*) FROM notified) AS fired;
