-- pgqueue's statements: queue
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

-- name: queue.counts
/* pgqueue:queue.counts */
SELECT queue, sum(waiting) AS waiting, sum(scheduled) AS scheduled, sum(ready) AS ready, sum(running) AS running, sum(dead) AS dead, sum(enqueued) AS enqueued, sum(completed) AS completed, sum(cancelled) AS cancelled, sum(failed) AS failed, sum(dead_lettered) AS dead_lettered
FROM (SELECT queue, waiting, scheduled, ready, running, dead, enqueued, completed, cancelled, failed, dead_lettered FROM "pgqueue".queue_counter
      UNION ALL
      SELECT queue, waiting, scheduled, ready, running, dead, enqueued, completed, cancelled, failed, dead_lettered FROM "pgqueue".queue_counter_delta) AS counts
GROUP BY queue ORDER BY queue;

-- name: queue.lags
/* pgqueue:queue.lags */
SELECT queue, extract(epoch FROM now() - "pgqueue".oldest_ready_run_at(queue)) AS lag_seconds FROM (SELECT queue FROM "pgqueue".queue_counter UNION SELECT queue FROM "pgqueue".queue_counter_delta) AS q;

-- name: queue.pause
/* pgqueue:queue.pause */
INSERT INTO "pgqueue".queue_state (queue, paused) VALUES (:queue, :paused)
ON CONFLICT (queue) DO UPDATE SET paused = excluded.paused, updated_at = now();

-- name: queue.paused
/* pgqueue:queue.paused */
SELECT queue FROM "pgqueue".queue_state WHERE paused;

-- name: queue.squeeze
/* pgqueue:queue.squeeze */
WITH squeezer AS (
    SELECT pg_try_advisory_xact_lock(hashtext(:lock)) AS granted
), moved AS (
    DELETE FROM "pgqueue".queue_counter_delta WHERE (SELECT granted FROM squeezer)
    RETURNING queue, waiting, scheduled, ready, running, dead, enqueued, completed, cancelled, failed, dead_lettered
), summed AS (
    SELECT queue, sum(waiting) AS waiting, sum(scheduled) AS scheduled, sum(ready) AS ready, sum(running) AS running, sum(dead) AS dead, sum(enqueued) AS enqueued, sum(completed) AS completed, sum(cancelled) AS cancelled, sum(failed) AS failed, sum(dead_lettered) AS dead_lettered FROM moved GROUP BY queue
), folded AS (
    INSERT INTO "pgqueue".queue_counter AS c (queue, waiting, scheduled, ready, running, dead, enqueued, completed, cancelled, failed, dead_lettered)
    SELECT queue, waiting, scheduled, ready, running, dead, enqueued, completed, cancelled, failed, dead_lettered FROM summed
    ON CONFLICT (queue) DO UPDATE SET waiting = c.waiting + excluded.waiting, scheduled = c.scheduled + excluded.scheduled, ready = c.ready + excluded.ready, running = c.running + excluded.running, dead = c.dead + excluded.dead, enqueued = c.enqueued + excluded.enqueued, completed = c.completed + excluded.completed, cancelled = c.cancelled + excluded.cancelled, failed = c.failed + excluded.failed, dead_lettered = c.dead_lettered + excluded.dead_lettered, updated_at = now()
    RETURNING queue, waiting, scheduled, ready, running, dead, enqueued, completed, cancelled, failed, dead_lettered
)
SELECT count(*) FROM moved;

-- name: queue.reconcile-lock
/* pgqueue:queue.reconcile-lock */
SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext(:lock))) AS locked;

-- name: queue.reconcile
/* pgqueue:queue.reconcile */
WITH actual AS (
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') AS waiting, count(*) FILTER (WHERE state = 'scheduled') AS scheduled, count(*) FILTER (WHERE state = 'ready') AS ready, count(*) FILTER (WHERE state = 'running') AS running, count(*) FILTER (WHERE state = 'dead') AS dead FROM "pgqueue".job GROUP BY queue
), recorded AS (
    SELECT queue, sum(waiting) AS waiting, sum(scheduled) AS scheduled, sum(ready) AS ready, sum(running) AS running, sum(dead) AS dead
    FROM (SELECT queue, waiting, scheduled, ready, running, dead FROM "pgqueue".queue_counter
          UNION ALL
          SELECT queue, waiting, scheduled, ready, running, dead FROM "pgqueue".queue_counter_delta) AS c
    GROUP BY queue
), drift AS (
    SELECT coalesce(a.queue, r.queue) AS queue, coalesce(a.waiting, 0) - coalesce(r.waiting, 0) AS waiting, coalesce(a.scheduled, 0) - coalesce(r.scheduled, 0) AS scheduled, coalesce(a.ready, 0) - coalesce(r.ready, 0) AS ready, coalesce(a.running, 0) - coalesce(r.running, 0) AS running, coalesce(a.dead, 0) - coalesce(r.dead, 0) AS dead
    FROM actual a FULL JOIN recorded r ON a.queue = r.queue
), corrected AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready, running, dead)
    SELECT queue, waiting, scheduled, ready, running, dead FROM drift WHERE waiting <> 0 OR scheduled <> 0 OR ready <> 0 OR running <> 0 OR dead <> 0
    RETURNING queue, waiting, scheduled, ready, running, dead
)
SELECT queue, waiting, scheduled, ready, running, dead FROM corrected ORDER BY queue;
