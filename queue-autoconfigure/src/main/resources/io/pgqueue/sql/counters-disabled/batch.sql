-- pgqueue's statements: batch
--
-- Rendered from the code that composes them, for reading and review: do not edit. A change of the
-- code that changes a statement fails StatementCatalogueTests until this file is regenerated
-- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
-- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
-- as server logs, pg_stat_activity and pg_stat_statements show it.
--
-- Rendered with the schema "pgqueue" and pgqueue.counters.enabled=false, every other setting its default: only the
-- statements this setting changes, under the names of the statements they replace.

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
), b_woken AS (
    SELECT DISTINCT queue FROM b_enqueued WHERE state = 'ready'
)
SELECT coalesce((SELECT state FROM b_batches), (SELECT state FROM "pgqueue".batch WHERE id = :id)) AS state,
       ARRAY(SELECT queue FROM b_woken) AS b_woken;

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
), b_woken AS (
    SELECT DISTINCT queue FROM b_enqueued WHERE state = 'ready'
)
SELECT coalesce((SELECT state FROM b_batches), (SELECT state FROM "pgqueue".batch WHERE id = :id)) AS state,
       ARRAY(SELECT queue FROM b_woken) AS b_woken;
