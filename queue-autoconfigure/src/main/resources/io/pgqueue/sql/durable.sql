-- pgqueue's statements: durable
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

-- name: durable.progress
/* pgqueue:durable.progress */
SELECT 'step' AS row_kind, s.name, s.occurrence, s.kind, NULL::text AS event_key, NULL::bigint AS child_id,
       false AS woken, false AS over, false AS delivered, NULL::text AS payload,
       NULL::bigint AS remaining_ms, s.result::text AS result, s.result_type
FROM "pgqueue".job_step s WHERE s.job_id = :job
UNION ALL
SELECT 'wait', w.name, w.occurrence, w.kind, w.event_key, w.child_id, w.woken,
       (w.until IS NOT NULL AND w.until <= now()) AS over, (e.key IS NOT NULL) AS delivered,
       e.payload::text AS payload,
       CASE WHEN w.until IS NOT NULL
            THEN greatest(0, (extract(epoch FROM (w.until - now())) * 1000)::bigint) END AS remaining_ms,
       NULL, NULL
FROM "pgqueue".job_wait w
LEFT JOIN "pgqueue".event e ON e.key = w.event_key AND e.expires_at > now()
WHERE w.job_id = :job;

-- name: durable.record-step
/* pgqueue:durable.record-step */
INSERT INTO "pgqueue".job_step (job_id, name, occurrence, kind, result, result_type, started_at)
VALUES (:job, :name, :occurrence, :kind, :result::jsonb, :result_type,
        to_timestamp(:started_ms / 1000.0))
ON CONFLICT (job_id, name, occurrence) DO NOTHING
RETURNING name, occurrence, kind, result::text AS result, result_type;

-- name: durable.recorded-step
/* pgqueue:durable.recorded-step */
SELECT name, occurrence, kind, result::text AS result, result_type FROM "pgqueue".job_step
WHERE job_id = :job AND name = :name AND occurrence = :occurrence;

-- name: durable.end-wait
/* pgqueue:durable.end-wait */
WITH recorded AS (
    INSERT INTO "pgqueue".job_step (job_id, name, occurrence, kind, result, result_type, started_at)
    VALUES (:job, :name, :occurrence, :kind, :result::jsonb, :result_type,
            to_timestamp(:started_ms / 1000.0))
    ON CONFLICT (job_id, name, occurrence) DO NOTHING
), ended AS (
    DELETE FROM "pgqueue".job_wait WHERE job_id = :job
)
SELECT 1;

-- name: durable.await-event
/* pgqueue:durable.await-event */
WITH emitted AS (
    SELECT payload FROM "pgqueue".event WHERE key = :key AND expires_at > now()
), registered AS (
    INSERT INTO "pgqueue".job_wait (job_id, name, occurrence, kind, event_key, child_id, until)
    SELECT :job, :name, :occurrence, :kind, :key, :child, :until WHERE NOT EXISTS (SELECT 1 FROM emitted)
    ON CONFLICT (job_id) DO UPDATE
        SET name = excluded.name, occurrence = excluded.occurrence, kind = excluded.kind,
            event_key = excluded.event_key, child_id = excluded.child_id, until = excluded.until, since = now(),
            woken = false
)
SELECT EXISTS (SELECT 1 FROM emitted) AS delivered, (SELECT payload::text FROM emitted) AS payload;

-- name: durable.park
/* pgqueue:durable.park */
INSERT INTO "pgqueue".job_wait (job_id, name, occurrence, kind, child_id, until)
VALUES (:job, :name, :occurrence, :kind, :child, :until)
ON CONFLICT (job_id) DO UPDATE
    SET name = excluded.name, occurrence = excluded.occurrence, kind = excluded.kind, event_key = NULL,
        child_id = excluded.child_id, until = excluded.until, since = now(), woken = false
RETURNING job_id;

-- name: durable.emit
/* pgqueue:durable.emit */
WITH emitted AS (
    INSERT INTO "pgqueue".event AS e (key, payload, expires_at)
    VALUES (:key, :payload::jsonb, now() + :retention_ms * interval '1 millisecond')
    ON CONFLICT (key) DO UPDATE
        SET payload = excluded.payload, emitted_at = now(), expires_at = excluded.expires_at
        WHERE e.expires_at <= now()
    RETURNING key
), due AS (
    UPDATE "pgqueue".job j SET run_at = now()
    FROM "pgqueue".job_wait w
    WHERE w.event_key IN (SELECT key FROM emitted) AND j.id = w.job_id AND j.state = 'scheduled'
    RETURNING j.queue
)
SELECT EXISTS (SELECT 1 FROM emitted) AS first, ARRAY(SELECT DISTINCT queue FROM due) AS due_woken;

-- name: durable.child
/* pgqueue:durable.child */
SELECT state, last_error FROM "pgqueue".job WHERE id = :child;

-- name: durable.deliver-recent
/* pgqueue:durable.deliver-recent */
WITH recent AS (
    SELECT key FROM "pgqueue".event WHERE emitted_at > now() - :window_ms * interval '1 millisecond'
), due AS (
    UPDATE "pgqueue".job j SET run_at = now()
    FROM "pgqueue".job_wait w
    WHERE w.event_key IN (SELECT key FROM recent) AND j.id = w.job_id AND j.state = 'scheduled' AND j.run_at > now()
    RETURNING j.queue
)
SELECT count(*) AS made_due, ARRAY(SELECT DISTINCT queue FROM due) AS due_woken FROM due;

-- name: durable.expire
/* pgqueue:durable.expire */
WITH expired AS (
    DELETE FROM "pgqueue".event WHERE key = ANY(ARRAY(
        SELECT key FROM "pgqueue".event WHERE expires_at <= now() ORDER BY expires_at LIMIT :limit))
    RETURNING key
), orphan_steps AS (
    DELETE FROM "pgqueue".job_step s WHERE s.job_id = ANY(ARRAY(
        SELECT DISTINCT o.job_id FROM "pgqueue".job_step o
        WHERE NOT EXISTS (SELECT 1 FROM "pgqueue".job j WHERE j.id = o.job_id) LIMIT :limit))
    RETURNING s.job_id
), orphan_waits AS (
    DELETE FROM "pgqueue".job_wait w WHERE w.job_id = ANY(ARRAY(
        SELECT o.job_id FROM "pgqueue".job_wait o
        WHERE NOT EXISTS (SELECT 1 FROM "pgqueue".job j WHERE j.id = o.job_id) LIMIT :limit))
    RETURNING w.job_id
)
SELECT greatest((SELECT count(*) FROM expired), (SELECT count(DISTINCT job_id) FROM orphan_steps),
                (SELECT count(*) FROM orphan_waits));

-- name: durable.steps
/* pgqueue:durable.steps */
SELECT name, occurrence, kind, result::text AS result, started_at, finished_at
FROM "pgqueue".job_step WHERE job_id = :job ORDER BY finished_at, name, occurrence;

-- name: durable.wait
/* pgqueue:durable.wait */
SELECT kind, event_key, child_id, until, since FROM "pgqueue".job_wait WHERE job_id = :job;

-- name: durable.wake
/* pgqueue:durable.wake */
WITH woken AS (
    UPDATE "pgqueue".job_wait SET woken = true, until = now() WHERE job_id = :job RETURNING job_id
), due AS (
    UPDATE "pgqueue".job j SET run_at = now() FROM woken w WHERE j.id = w.job_id AND j.state = 'scheduled'
    RETURNING j.queue
)
SELECT (SELECT count(*) FROM woken) AS parked, ARRAY(SELECT queue FROM due) AS due_woken;
