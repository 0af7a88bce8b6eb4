-- pgqueue's statements: batch
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

-- name: batch.open
/* pgqueue:batch.open */
WITH created AS (
    INSERT INTO "pgqueue".batch (name, properties, complete_on_cancel)
    VALUES (:name, jsonb_object(:keys::text[], :values::text[]), :complete_on_cancel)
    RETURNING id
), slots AS (
    INSERT INTO "pgqueue".batch_slot (batch_id, slot)
    SELECT c.id, s FROM created c, generate_series(0, 15) AS s
), callbacks AS (
    INSERT INTO "pgqueue".batch_callback (batch_id, event, queue, priority, delay_ms, max_attempts,
                                         group_key, timeout_ms, headers)
    SELECT c.id, k.event, k.queue, k.priority, k.delay_ms, k.max_attempts, k.group_key, k.timeout_ms,
           k.headers::jsonb
    FROM created c,
         unnest(:events::text[], :queues::text[], :priorities::smallint[], :delays::bigint[],
                :max_attempts::int[], :group_keys::text[], :timeouts::bigint[], :headers::text[])
         AS k(event, queue, priority, delay_ms, max_attempts, group_key, timeout_ms, headers)
)
SELECT id FROM created;

-- name: batch.lock-for-adding
/* pgqueue:batch.lock-for-adding */
SELECT state FROM "pgqueue".batch WHERE id = :id FOR KEY SHARE;

-- name: batch.seal
/* pgqueue:batch.seal */
WITH b_target AS (
    SELECT id FROM "pgqueue".batch WHERE id = :id AND state = 'open' FOR UPDATE
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT id FROM b_target)) ORDER BY s.batch_id, s.slot FOR UPDATE
), b_sealed AS (
    UPDATE "pgqueue".batch_slot s SET sealed = true
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked))
    RETURNING s.batch_id, s.unfinished, s.uncompleted, s.deaths, s.failures
), b_crossed AS (
    SELECT batch_id, count(*) FILTER (WHERE unfinished > 0) AS unfinished_slots,
           count(*) FILTER (WHERE uncompleted > 0) AS uncompleted_slots,
           sum(deaths) AS deaths, sum(failures) AS failures
    FROM b_sealed GROUP BY batch_id
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = c.unfinished_slots, uncompleted_slots = c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN c.unfinished_slots > 0 THEN 'running'
         WHEN c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END, sealed_at = coalesce(b.sealed_at, now()),
        finished_at = CASE WHEN c.unfinished_slots = 0 THEN now() END
    FROM b_crossed c
    WHERE b.id = c.batch_id
    RETURNING b.id, b.unfinished_slots, b.uncompleted_slots, b.state
), b_events AS (
    SELECT id AS batch_id, 'success' AS event FROM b_batches WHERE uncompleted_slots = 0
    UNION ALL SELECT id, 'complete' FROM b_batches WHERE unfinished_slots = 0
    UNION ALL SELECT batch_id, 'first_death' FROM b_crossed WHERE deaths > 0
    UNION ALL SELECT batch_id, 'cannot_succeed' FROM b_crossed WHERE failures > 0
), b_due AS (
    SELECT k.batch_id, k.event FROM "pgqueue".batch_callback k
    WHERE k.batch_id = ANY(ARRAY(SELECT batch_id FROM b_events))
      AND (k.batch_id, k.event) IN (SELECT batch_id, event FROM b_events) AND k.state = 'pending'
    ORDER BY k.batch_id, k.event FOR UPDATE
), b_fired AS (
    UPDATE "pgqueue".batch_callback k
    SET state = 'fired', fired_at = now(), job_id = nextval(pg_get_serial_sequence('"pgqueue".job', 'id'))
    FROM b_due d
    WHERE k.batch_id = ANY(ARRAY(SELECT batch_id FROM b_due)) AND k.batch_id = d.batch_id
      AND k.event = d.event AND k.state = 'pending'
    RETURNING k.batch_id, k.event, k.queue, k.priority, k.delay_ms, k.max_attempts, k.group_key,
              k.timeout_ms, k.headers, k.job_id
), b_enqueued AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (id, queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, group_key, timeout_ms)
    OVERRIDING SYSTEM VALUE
    SELECT f.job_id, f.queue, CASE WHEN f.delay_ms > 0 THEN 'scheduled' ELSE 'ready' END, f.priority,
           now() + f.delay_ms * interval '1 millisecond',
           jsonb_build_object('batchId', b.id, 'batchName', b.name, 'event', upper(f.event),
                              'properties', b.properties),
           'io.pgqueue.batch.BatchEvent', f.headers, f.max_attempts, f.group_key, f.timeout_ms
    FROM b_fired f JOIN "pgqueue".batch b ON b.id = f.batch_id
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM b_enqueued GROUP BY queue
), b_woken AS (
    SELECT DISTINCT queue FROM b_enqueued WHERE state = 'ready'
)
SELECT coalesce((SELECT state FROM b_batches), (SELECT state FROM "pgqueue".batch WHERE id = :id)) AS state,
       ARRAY(SELECT queue FROM b_woken) AS b_woken;

-- name: batch.mark-cancelled
/* pgqueue:batch.mark-cancelled */
WITH target AS (
    SELECT id, state, complete_on_cancel FROM "pgqueue".batch
    WHERE id = :id AND state IN ('open', 'running') FOR UPDATE
), skipped AS (
    UPDATE "pgqueue".batch_callback k SET state = 'skipped'
    FROM target t
    WHERE k.batch_id = t.id AND k.state = 'pending' AND (k.event <> 'complete' OR NOT t.complete_on_cancel)
), marked AS (
    UPDATE "pgqueue".batch SET state = 'cancelled' WHERE id = ANY(ARRAY(SELECT id FROM target))
    RETURNING id
)
SELECT t.state FROM target t JOIN marked m ON m.id = t.id;

-- name: batch.seal-cancelled
/* pgqueue:batch.seal-cancelled */
WITH b_target AS (
    SELECT id FROM "pgqueue".batch WHERE id = :id AND state = 'cancelled' FOR UPDATE
), b_locked AS (
    SELECT s.batch_id, s.slot FROM "pgqueue".batch_slot s
    WHERE s.batch_id = ANY(ARRAY(SELECT id FROM b_target)) ORDER BY s.batch_id, s.slot FOR UPDATE
), b_sealed AS (
    UPDATE "pgqueue".batch_slot s SET sealed = true
    WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked))
    RETURNING s.batch_id, s.unfinished, s.uncompleted, s.deaths, s.failures
), b_crossed AS (
    SELECT batch_id, count(*) FILTER (WHERE unfinished > 0) AS unfinished_slots,
           count(*) FILTER (WHERE uncompleted > 0) AS uncompleted_slots,
           sum(deaths) AS deaths, sum(failures) AS failures
    FROM b_sealed GROUP BY batch_id
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = c.unfinished_slots, uncompleted_slots = c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN c.unfinished_slots > 0 THEN 'running'
         WHEN c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END, sealed_at = coalesce(b.sealed_at, now()),
        finished_at = CASE WHEN c.unfinished_slots = 0 THEN now() END
    FROM b_crossed c
    WHERE b.id = c.batch_id
    RETURNING b.id, b.unfinished_slots, b.uncompleted_slots, b.state
), b_events AS (
    SELECT id AS batch_id, 'success' AS event FROM b_batches WHERE uncompleted_slots = 0
    UNION ALL SELECT id, 'complete' FROM b_batches WHERE unfinished_slots = 0
    UNION ALL SELECT batch_id, 'first_death' FROM b_crossed WHERE deaths > 0
    UNION ALL SELECT batch_id, 'cannot_succeed' FROM b_crossed WHERE failures > 0
), b_due AS (
    SELECT k.batch_id, k.event FROM "pgqueue".batch_callback k
    WHERE k.batch_id = ANY(ARRAY(SELECT batch_id FROM b_events))
      AND (k.batch_id, k.event) IN (SELECT batch_id, event FROM b_events) AND k.state = 'pending'
    ORDER BY k.batch_id, k.event FOR UPDATE
), b_fired AS (
    UPDATE "pgqueue".batch_callback k
    SET state = 'fired', fired_at = now(), job_id = nextval(pg_get_serial_sequence('"pgqueue".job', 'id'))
    FROM b_due d
    WHERE k.batch_id = ANY(ARRAY(SELECT batch_id FROM b_due)) AND k.batch_id = d.batch_id
      AND k.event = d.event AND k.state = 'pending'
    RETURNING k.batch_id, k.event, k.queue, k.priority, k.delay_ms, k.max_attempts, k.group_key,
              k.timeout_ms, k.headers, k.job_id
), b_enqueued AS (
    /* pgqueue:enqueue */
    INSERT INTO "pgqueue".job (id, queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, group_key, timeout_ms)
    OVERRIDING SYSTEM VALUE
    SELECT f.job_id, f.queue, CASE WHEN f.delay_ms > 0 THEN 'scheduled' ELSE 'ready' END, f.priority,
           now() + f.delay_ms * interval '1 millisecond',
           jsonb_build_object('batchId', b.id, 'batchName', b.name, 'event', upper(f.event),
                              'properties', b.properties),
           'io.pgqueue.batch.BatchEvent', f.headers, f.max_attempts, f.group_key, f.timeout_ms
    FROM b_fired f JOIN "pgqueue".batch b ON b.id = f.batch_id
    RETURNING id, queue, state
), counted_enqueue AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM b_enqueued GROUP BY queue
), b_woken AS (
    SELECT DISTINCT queue FROM b_enqueued WHERE state = 'ready'
)
SELECT coalesce((SELECT state FROM b_batches), (SELECT state FROM "pgqueue".batch WHERE id = :id)) AS state,
       ARRAY(SELECT queue FROM b_woken) AS b_woken;

-- name: batch.batch
/* pgqueue:batch.batch */
SELECT b.id, b.name, b.state, b.created_at, b.sealed_at, b.finished_at,
ARRAY(SELECT key FROM jsonb_each_text(b.properties) ORDER BY key) AS property_keys,
ARRAY(SELECT value FROM jsonb_each_text(b.properties) ORDER BY key) AS property_values,
ARRAY(SELECT event FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS events,
ARRAY(SELECT queue FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS queues,
ARRAY(SELECT state FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS states,
ARRAY(SELECT job_id FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS job_ids,
ARRAY(SELECT fired_at FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS fired_at,
c.*
FROM "pgqueue".batch b
LEFT JOIN LATERAL (SELECT batch_id, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT batch_id, active, dead, completed, cancelled FROM "pgqueue".batch_counter WHERE batch_id = b.id
      UNION ALL
      SELECT batch_id, active, dead, completed, cancelled FROM "pgqueue".batch_counter_delta WHERE batch_id = b.id) AS counts
GROUP BY batch_id ORDER BY batch_id) AS c ON true
WHERE b.id = :id;

-- name: batch.members
/* pgqueue:batch.members */
SELECT id, queue, state, attempts, split_part(left(last_error, 1000), chr(10), 1) AS error
FROM "pgqueue".job
WHERE batch_id = :batch_id AND id > :after
ORDER BY batch_id, id LIMIT :limit;

-- name: batch.counts-by-state
/* pgqueue:batch.counts-by-state */
SELECT state, count(*) FROM "pgqueue".batch GROUP BY state;

-- name: batch.squeeze
/* pgqueue:batch.squeeze */
WITH squeezer AS (
    SELECT pg_try_advisory_xact_lock(hashtext(:lock)) AS granted
), moved AS (
    DELETE FROM "pgqueue".batch_counter_delta WHERE (SELECT granted FROM squeezer)
    RETURNING batch_id, active, dead, completed, cancelled
), summed AS (
    SELECT batch_id, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled FROM moved GROUP BY batch_id
), folded AS (
    INSERT INTO "pgqueue".batch_counter AS c (batch_id, active, dead, completed, cancelled)
    SELECT batch_id, active, dead, completed, cancelled FROM summed
    ON CONFLICT (batch_id) DO UPDATE SET active = c.active + excluded.active, dead = c.dead + excluded.dead, completed = c.completed + excluded.completed, cancelled = c.cancelled + excluded.cancelled, updated_at = now()
    RETURNING batch_id, active, dead, completed, cancelled
)
SELECT count(*) FROM moved;

-- name: batch.expire
/* pgqueue:batch.expire */
WITH gone AS (
    DELETE FROM "pgqueue".batch WHERE id = ANY(ARRAY(
        SELECT b.id FROM "pgqueue".batch b
        WHERE b.finished_at < now() - :retention_ms * interval '1 millisecond'
          AND NOT EXISTS (SELECT 1 FROM "pgqueue".job j WHERE j.batch_id = b.id)
          AND NOT EXISTS (SELECT 1 FROM "pgqueue".batch_callback k JOIN "pgqueue".job j ON j.id = k.job_id
                          WHERE k.batch_id = b.id)
        ORDER BY b.finished_at LIMIT :limit FOR UPDATE SKIP LOCKED))
    RETURNING id
), slots AS (
    DELETE FROM "pgqueue".batch_slot s USING gone g WHERE s.batch_id = g.id
), callbacks AS (
    DELETE FROM "pgqueue".batch_callback k USING gone g WHERE k.batch_id = g.id
), counts AS (
    DELETE FROM "pgqueue".batch_counter c USING gone g WHERE c.batch_id = g.id
)
SELECT count(*) FROM gone;

-- name: batch.page
/* pgqueue:batch.page */
SELECT b.id, b.name, b.state, b.created_at, b.sealed_at, b.finished_at,
ARRAY(SELECT key FROM jsonb_each_text(b.properties) ORDER BY key) AS property_keys,
ARRAY(SELECT value FROM jsonb_each_text(b.properties) ORDER BY key) AS property_values,
ARRAY(SELECT event FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS events,
ARRAY(SELECT queue FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS queues,
ARRAY(SELECT state FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS states,
ARRAY(SELECT job_id FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS job_ids,
ARRAY(SELECT fired_at FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS fired_at,
c.*
FROM (SELECT * FROM "pgqueue".batch
      WHERE id < :before 
      ORDER BY id DESC LIMIT :limit) AS b
LEFT JOIN LATERAL (SELECT batch_id, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT batch_id, active, dead, completed, cancelled FROM "pgqueue".batch_counter WHERE batch_id = b.id
      UNION ALL
      SELECT batch_id, active, dead, completed, cancelled FROM "pgqueue".batch_counter_delta WHERE batch_id = b.id) AS counts
GROUP BY batch_id ORDER BY batch_id) AS c ON true
ORDER BY b.id DESC;

-- name: batch.page+name+state
/* pgqueue:batch.page+name+state */
SELECT b.id, b.name, b.state, b.created_at, b.sealed_at, b.finished_at,
ARRAY(SELECT key FROM jsonb_each_text(b.properties) ORDER BY key) AS property_keys,
ARRAY(SELECT value FROM jsonb_each_text(b.properties) ORDER BY key) AS property_values,
ARRAY(SELECT event FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS events,
ARRAY(SELECT queue FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS queues,
ARRAY(SELECT state FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS states,
ARRAY(SELECT job_id FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS job_ids,
ARRAY(SELECT fired_at FROM "pgqueue".batch_callback k WHERE k.batch_id = b.id ORDER BY event) AS fired_at,
c.*
FROM (SELECT * FROM "pgqueue".batch
      WHERE id < :before AND name = :name AND state = :state 
      ORDER BY id DESC LIMIT :limit) AS b
LEFT JOIN LATERAL (SELECT batch_id, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT batch_id, active, dead, completed, cancelled FROM "pgqueue".batch_counter WHERE batch_id = b.id
      UNION ALL
      SELECT batch_id, active, dead, completed, cancelled FROM "pgqueue".batch_counter_delta WHERE batch_id = b.id) AS counts
GROUP BY batch_id ORDER BY batch_id) AS c ON true
ORDER BY b.id DESC;
