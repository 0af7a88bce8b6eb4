-- pgqueue's statements: finish
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

-- name: finish.snooze
/* pgqueue:finish.snooze */
/* pgqueue:snooze */WITH snoozed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = statement_timestamp() + :delay_ms::bigint * interval '1 millisecond',
        attempts = :attempt - 1, locked_by = NULL, lease_until = NULL, debounce_key = NULL
    WHERE id = :id AND attempts = :attempt AND state = 'running' AND locked_by = :node AND NOT cancel_requested
    RETURNING queue, state
), counted_snooze AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, running)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), -count(*) FROM snoozed GROUP BY queue
)
SELECT count(*) FROM snoozed;
/* pgqueue:finish.snooze #2 */
/* pgqueue:cancel_running */WITH cancelled AS (
    DELETE FROM "pgqueue".job j
    WHERE id = :id AND attempts = :attempt AND locked_by = :node AND j.state = 'running' AND j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_running AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, cancelled)
    SELECT queue, -count(*), count(*) FROM cancelled GROUP BY queue
)
SELECT count(*) FROM cancelled;

-- name: finish.snooze:cascades
/* pgqueue:finish.snooze:cascades */
/* pgqueue:snooze */WITH snoozed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = statement_timestamp() + :delay_ms::bigint * interval '1 millisecond',
        attempts = :attempt - 1, locked_by = NULL, lease_until = NULL, debounce_key = NULL
    WHERE id = :id AND attempts = :attempt AND state = 'running' AND locked_by = :node AND NOT cancel_requested
    RETURNING queue, state
), counted_snooze AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, running)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), -count(*) FROM snoozed GROUP BY queue
)
SELECT count(*) FROM snoozed;
/* pgqueue:finish.snooze:cascades #2 */
/* pgqueue:cancel_running */WITH RECURSIVE cancelled AS (
    DELETE FROM "pgqueue".job j
    WHERE id = :id AND attempts = :attempt AND locked_by = :node AND j.state = 'running' AND j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_running AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, cancelled)
    SELECT queue, -count(*), count(*) FROM cancelled GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id, 'active' AS was, 'cancelled' AS now_is
    FROM cancelled WHERE workflow_id IS NOT NULL
), wf_ended AS (
    SELECT id, now_is AS outcome FROM wf_moved
    WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is
), wf_doomed (id, root, parent, outcome) AS (
    SELECT d.child_id, e.id, e.id, e.outcome
    FROM wf_ended e
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = e.id OFFSET 0) AS d
    WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
      AND d.child_id NOT IN (SELECT id FROM wf_moved)
    UNION
    SELECT d.child_id, x.root, x.id, x.outcome
    FROM wf_doomed x
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = x.id OFFSET 0) AS d
    WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)
), wf_sources AS (
    SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed
), wf_sources_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d USING wf_sources_sorted s
    WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
    RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome
), wf_orphaned AS (
    DELETE FROM "pgqueue".job_dependency d
    WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
    RETURNING d.child_id
), wf_satisfying AS (
    SELECT child_id, count(*) AS n FROM wf_consumed
    WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
    GROUP BY child_id
), wf_locked AS (
    SELECT l.id, c.n
    FROM (SELECT child_id, n FROM wf_satisfying
          UNION ALL
          SELECT DISTINCT id, NULL::bigint FROM wf_doomed
          ORDER BY 1) AS c (child_id, n)
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j WHERE j.id = c.child_id AND j.state = 'waiting'
                        FOR UPDATE) AS l
), wf_satisfied AS (
    SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL
), wf_cancelled AS (
    /* pgqueue:cancel_dependants */
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND j.state = 'waiting'
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_dependants AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, cancelled)
    SELECT queue, -count(*), count(*) FROM wf_cancelled GROUP BY queue
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_cancelled_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n
    SET state = f.state, finished_at = now(), error = f.error
    FROM (SELECT m.id, m.now_is AS state, NULL::text AS error
          FROM wf_moved m
          WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
          UNION ALL
          (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                 -- the node's own parent; below the first level, the node whose end started it
                 'parent ' || coalesce(p.name, x.parent::text)
                 || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                         || coalesce(r.name, x.root::text) END
                 || ' ended ' || x.outcome
          -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
          -- of the two sets: see wf_sources_sorted)
          FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
               LEFT JOIN "pgqueue".workflow_node p ON p.job_id = x.parent
               LEFT JOIN "pgqueue".workflow_node r ON r.job_id = x.root
          WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
          ORDER BY x.id, (x.parent = x.root) DESC)) AS f
    WHERE n.job_id = f.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
              UNION ALL
              SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
              UNION ALL
              SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting') AS m
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'active' AS was, 'cancelled' AS now_is
    FROM cancelled WHERE batch_id IS NOT NULL
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
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM cancelled;

-- name: finish.fail
/* pgqueue:finish.fail */
/* pgqueue:fail */WITH failed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :dead::boolean THEN 'dead'
                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = CASE WHEN :dead::boolean THEN run_at
                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
        attempts = :attempt, max_attempts = :max_attempts,
        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
    WHERE id = :id AND attempts = :attempt AND state = 'running' AND locked_by = :node AND NOT cancel_requested
    RETURNING id, queue, state, workflow_id, batch_id
), counted_fail AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, running, dead, failed, dead_lettered)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), -count(*), count(*) FILTER (WHERE state = 'dead'), count(*), count(*) FILTER (WHERE state = 'dead') FROM failed GROUP BY queue
)
SELECT count(*) FROM failed;
/* pgqueue:finish.fail #2 */
/* pgqueue:cancel_running */WITH cancelled AS (
    DELETE FROM "pgqueue".job j
    WHERE id = :id AND attempts = :attempt AND locked_by = :node AND j.state = 'running' AND j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_running AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, cancelled)
    SELECT queue, -count(*), count(*) FROM cancelled GROUP BY queue
)
SELECT count(*) FROM cancelled;

-- name: finish.fail:cascades
/* pgqueue:finish.fail:cascades */
/* pgqueue:fail */WITH RECURSIVE failed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :dead::boolean THEN 'dead'
                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = CASE WHEN :dead::boolean THEN run_at
                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
        attempts = :attempt, max_attempts = :max_attempts,
        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
    WHERE id = :id AND attempts = :attempt AND state = 'running' AND locked_by = :node AND NOT cancel_requested
    RETURNING id, queue, state, workflow_id, batch_id
), counted_fail AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, running, dead, failed, dead_lettered)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), -count(*), count(*) FILTER (WHERE state = 'dead'), count(*), count(*) FILTER (WHERE state = 'dead') FROM failed GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id, 'active' AS was, CASE WHEN state IN ('scheduled', 'ready', 'running') THEN 'active' ELSE state END AS now_is
    FROM failed WHERE workflow_id IS NOT NULL
), wf_ended AS (
    SELECT id, now_is AS outcome FROM wf_moved
    WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is
), wf_doomed (id, root, parent, outcome) AS (
    SELECT d.child_id, e.id, e.id, e.outcome
    FROM wf_ended e
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = e.id OFFSET 0) AS d
    WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
      AND d.child_id NOT IN (SELECT id FROM wf_moved)
    UNION
    SELECT d.child_id, x.root, x.id, x.outcome
    FROM wf_doomed x
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = x.id OFFSET 0) AS d
    WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)
), wf_sources AS (
    SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed
), wf_sources_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d USING wf_sources_sorted s
    WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
    RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome
), wf_orphaned AS (
    DELETE FROM "pgqueue".job_dependency d
    WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
    RETURNING d.child_id
), wf_satisfying AS (
    SELECT child_id, count(*) AS n FROM wf_consumed
    WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
    GROUP BY child_id
), wf_locked AS (
    SELECT l.id, c.n
    FROM (SELECT child_id, n FROM wf_satisfying
          UNION ALL
          SELECT DISTINCT id, NULL::bigint FROM wf_doomed
          ORDER BY 1) AS c (child_id, n)
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j WHERE j.id = c.child_id AND j.state = 'waiting'
                        FOR UPDATE) AS l
), wf_satisfied AS (
    SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL
), wf_cancelled AS (
    /* pgqueue:cancel_dependants */
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND j.state = 'waiting'
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_dependants AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, cancelled)
    SELECT queue, -count(*), count(*) FROM wf_cancelled GROUP BY queue
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_cancelled_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n
    SET state = f.state, finished_at = now(), error = f.error
    FROM (SELECT m.id, m.now_is AS state, NULL::text AS error
          FROM wf_moved m
          WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
          UNION ALL
          (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                 -- the node's own parent; below the first level, the node whose end started it
                 'parent ' || coalesce(p.name, x.parent::text)
                 || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                         || coalesce(r.name, x.root::text) END
                 || ' ended ' || x.outcome
          -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
          -- of the two sets: see wf_sources_sorted)
          FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
               LEFT JOIN "pgqueue".workflow_node p ON p.job_id = x.parent
               LEFT JOIN "pgqueue".workflow_node r ON r.job_id = x.root
          WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
          ORDER BY x.id, (x.parent = x.root) DESC)) AS f
    WHERE n.job_id = f.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
              UNION ALL
              SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
              UNION ALL
              SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting') AS m
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'active' AS was, CASE WHEN state IN ('waiting', 'scheduled', 'ready', 'running') THEN 'active' ELSE state END AS now_is
    FROM failed WHERE batch_id IS NOT NULL
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
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM failed;
/* pgqueue:finish.fail:cascades #2 */
/* pgqueue:cancel_running */WITH RECURSIVE cancelled AS (
    DELETE FROM "pgqueue".job j
    WHERE id = :id AND attempts = :attempt AND locked_by = :node AND j.state = 'running' AND j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_running AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, cancelled)
    SELECT queue, -count(*), count(*) FROM cancelled GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id, 'active' AS was, 'cancelled' AS now_is
    FROM cancelled WHERE workflow_id IS NOT NULL
), wf_ended AS (
    SELECT id, now_is AS outcome FROM wf_moved
    WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is
), wf_doomed (id, root, parent, outcome) AS (
    SELECT d.child_id, e.id, e.id, e.outcome
    FROM wf_ended e
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = e.id OFFSET 0) AS d
    WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
      AND d.child_id NOT IN (SELECT id FROM wf_moved)
    UNION
    SELECT d.child_id, x.root, x.id, x.outcome
    FROM wf_doomed x
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = x.id OFFSET 0) AS d
    WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)
), wf_sources AS (
    SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed
), wf_sources_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d USING wf_sources_sorted s
    WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
    RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome
), wf_orphaned AS (
    DELETE FROM "pgqueue".job_dependency d
    WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
    RETURNING d.child_id
), wf_satisfying AS (
    SELECT child_id, count(*) AS n FROM wf_consumed
    WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
    GROUP BY child_id
), wf_locked AS (
    SELECT l.id, c.n
    FROM (SELECT child_id, n FROM wf_satisfying
          UNION ALL
          SELECT DISTINCT id, NULL::bigint FROM wf_doomed
          ORDER BY 1) AS c (child_id, n)
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j WHERE j.id = c.child_id AND j.state = 'waiting'
                        FOR UPDATE) AS l
), wf_satisfied AS (
    SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL
), wf_cancelled AS (
    /* pgqueue:cancel_dependants */
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND j.state = 'waiting'
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_dependants AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, cancelled)
    SELECT queue, -count(*), count(*) FROM wf_cancelled GROUP BY queue
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_cancelled_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n
    SET state = f.state, finished_at = now(), error = f.error
    FROM (SELECT m.id, m.now_is AS state, NULL::text AS error
          FROM wf_moved m
          WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
          UNION ALL
          (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                 -- the node's own parent; below the first level, the node whose end started it
                 'parent ' || coalesce(p.name, x.parent::text)
                 || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                         || coalesce(r.name, x.root::text) END
                 || ' ended ' || x.outcome
          -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
          -- of the two sets: see wf_sources_sorted)
          FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
               LEFT JOIN "pgqueue".workflow_node p ON p.job_id = x.parent
               LEFT JOIN "pgqueue".workflow_node r ON r.job_id = x.root
          WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
          ORDER BY x.id, (x.parent = x.root) DESC)) AS f
    WHERE n.job_id = f.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
              UNION ALL
              SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
              UNION ALL
              SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting') AS m
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'active' AS was, 'cancelled' AS now_is
    FROM cancelled WHERE batch_id IS NOT NULL
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
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM cancelled;

-- name: finish.fail-after-rollback
/* pgqueue:finish.fail-after-rollback */
/* pgqueue:fail_after_rollback */WITH failed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :dead::boolean THEN 'dead'
                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = CASE WHEN :dead::boolean THEN run_at
                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
        attempts = :attempt, max_attempts = :max_attempts,
        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING id, queue, state, workflow_id, batch_id
), counted_fail_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, dead, failed, dead_lettered)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*), count(*) FILTER (WHERE state = 'dead'), count(*), count(*) FILTER (WHERE state = 'dead') FROM failed GROUP BY queue
)
SELECT count(*) FROM failed;

-- name: finish.fail-after-rollback:cascades
/* pgqueue:finish.fail-after-rollback:cascades */
/* pgqueue:fail_after_rollback */WITH RECURSIVE failed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :dead::boolean THEN 'dead'
                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = CASE WHEN :dead::boolean THEN run_at
                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
        attempts = :attempt, max_attempts = :max_attempts,
        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING id, queue, state, workflow_id, batch_id
), counted_fail_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, dead, failed, dead_lettered)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*), count(*) FILTER (WHERE state = 'dead'), count(*), count(*) FILTER (WHERE state = 'dead') FROM failed GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id, 'active' AS was, CASE WHEN state IN ('scheduled', 'ready', 'running') THEN 'active' ELSE state END AS now_is
    FROM failed WHERE workflow_id IS NOT NULL
), wf_ended AS (
    SELECT id, now_is AS outcome FROM wf_moved
    WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is
), wf_doomed (id, root, parent, outcome) AS (
    SELECT d.child_id, e.id, e.id, e.outcome
    FROM wf_ended e
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = e.id OFFSET 0) AS d
    WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
      AND d.child_id NOT IN (SELECT id FROM wf_moved)
    UNION
    SELECT d.child_id, x.root, x.id, x.outcome
    FROM wf_doomed x
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = x.id OFFSET 0) AS d
    WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)
), wf_sources AS (
    SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed
), wf_sources_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d USING wf_sources_sorted s
    WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
    RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome
), wf_orphaned AS (
    DELETE FROM "pgqueue".job_dependency d
    WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
    RETURNING d.child_id
), wf_satisfying AS (
    SELECT child_id, count(*) AS n FROM wf_consumed
    WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
    GROUP BY child_id
), wf_locked AS (
    SELECT l.id, c.n
    FROM (SELECT child_id, n FROM wf_satisfying
          UNION ALL
          SELECT DISTINCT id, NULL::bigint FROM wf_doomed
          ORDER BY 1) AS c (child_id, n)
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j WHERE j.id = c.child_id AND j.state = 'waiting'
                        FOR UPDATE) AS l
), wf_satisfied AS (
    SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL
), wf_cancelled AS (
    /* pgqueue:cancel_dependants */
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND j.state = 'waiting'
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_dependants AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, cancelled)
    SELECT queue, -count(*), count(*) FROM wf_cancelled GROUP BY queue
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_cancelled_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n
    SET state = f.state, finished_at = now(), error = f.error
    FROM (SELECT m.id, m.now_is AS state, NULL::text AS error
          FROM wf_moved m
          WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
          UNION ALL
          (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                 -- the node's own parent; below the first level, the node whose end started it
                 'parent ' || coalesce(p.name, x.parent::text)
                 || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                         || coalesce(r.name, x.root::text) END
                 || ' ended ' || x.outcome
          -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
          -- of the two sets: see wf_sources_sorted)
          FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
               LEFT JOIN "pgqueue".workflow_node p ON p.job_id = x.parent
               LEFT JOIN "pgqueue".workflow_node r ON r.job_id = x.root
          WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
          ORDER BY x.id, (x.parent = x.root) DESC)) AS f
    WHERE n.job_id = f.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
              UNION ALL
              SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
              UNION ALL
              SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting') AS m
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'active' AS was, CASE WHEN state IN ('waiting', 'scheduled', 'ready', 'running') THEN 'active' ELSE state END AS now_is
    FROM failed WHERE batch_id IS NOT NULL
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
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM failed;

-- name: finish.undo-claim-then-fail
/* pgqueue:finish.undo-claim-then-fail */
ROLLBACK TO SAVEPOINT pgqueue_claim;
/* pgqueue:finish.undo-claim-then-fail #2 */
/* pgqueue:fail_after_rollback */WITH failed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :dead::boolean THEN 'dead'
                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = CASE WHEN :dead::boolean THEN run_at
                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
        attempts = :attempt, max_attempts = :max_attempts,
        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING id, queue, state, workflow_id, batch_id
), counted_fail_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, dead, failed, dead_lettered)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*), count(*) FILTER (WHERE state = 'dead'), count(*), count(*) FILTER (WHERE state = 'dead') FROM failed GROUP BY queue
)
SELECT count(*) FROM failed;

-- name: finish.undo-claim-then-fail:cascades
/* pgqueue:finish.undo-claim-then-fail:cascades */
ROLLBACK TO SAVEPOINT pgqueue_claim;
/* pgqueue:finish.undo-claim-then-fail:cascades #2 */
/* pgqueue:fail_after_rollback */WITH RECURSIVE failed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :dead::boolean THEN 'dead'
                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = CASE WHEN :dead::boolean THEN run_at
                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
        attempts = :attempt, max_attempts = :max_attempts,
        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING id, queue, state, workflow_id, batch_id
), counted_fail_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, dead, failed, dead_lettered)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*), count(*) FILTER (WHERE state = 'dead'), count(*), count(*) FILTER (WHERE state = 'dead') FROM failed GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id, 'active' AS was, CASE WHEN state IN ('scheduled', 'ready', 'running') THEN 'active' ELSE state END AS now_is
    FROM failed WHERE workflow_id IS NOT NULL
), wf_ended AS (
    SELECT id, now_is AS outcome FROM wf_moved
    WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is
), wf_doomed (id, root, parent, outcome) AS (
    SELECT d.child_id, e.id, e.id, e.outcome
    FROM wf_ended e
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = e.id OFFSET 0) AS d
    WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
      AND d.child_id NOT IN (SELECT id FROM wf_moved)
    UNION
    SELECT d.child_id, x.root, x.id, x.outcome
    FROM wf_doomed x
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = x.id OFFSET 0) AS d
    WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)
), wf_sources AS (
    SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed
), wf_sources_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d USING wf_sources_sorted s
    WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
    RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome
), wf_orphaned AS (
    DELETE FROM "pgqueue".job_dependency d
    WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
    RETURNING d.child_id
), wf_satisfying AS (
    SELECT child_id, count(*) AS n FROM wf_consumed
    WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
    GROUP BY child_id
), wf_locked AS (
    SELECT l.id, c.n
    FROM (SELECT child_id, n FROM wf_satisfying
          UNION ALL
          SELECT DISTINCT id, NULL::bigint FROM wf_doomed
          ORDER BY 1) AS c (child_id, n)
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j WHERE j.id = c.child_id AND j.state = 'waiting'
                        FOR UPDATE) AS l
), wf_satisfied AS (
    SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL
), wf_cancelled AS (
    /* pgqueue:cancel_dependants */
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND j.state = 'waiting'
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_dependants AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, cancelled)
    SELECT queue, -count(*), count(*) FROM wf_cancelled GROUP BY queue
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_cancelled_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n
    SET state = f.state, finished_at = now(), error = f.error
    FROM (SELECT m.id, m.now_is AS state, NULL::text AS error
          FROM wf_moved m
          WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
          UNION ALL
          (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                 -- the node's own parent; below the first level, the node whose end started it
                 'parent ' || coalesce(p.name, x.parent::text)
                 || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                         || coalesce(r.name, x.root::text) END
                 || ' ended ' || x.outcome
          -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
          -- of the two sets: see wf_sources_sorted)
          FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
               LEFT JOIN "pgqueue".workflow_node p ON p.job_id = x.parent
               LEFT JOIN "pgqueue".workflow_node r ON r.job_id = x.root
          WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
          ORDER BY x.id, (x.parent = x.root) DESC)) AS f
    WHERE n.job_id = f.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
              UNION ALL
              SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
              UNION ALL
              SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting') AS m
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'active' AS was, CASE WHEN state IN ('waiting', 'scheduled', 'ready', 'running') THEN 'active' ELSE state END AS now_is
    FROM failed WHERE batch_id IS NOT NULL
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
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM failed;

-- name: finish.restore-claim-then-fail
/* pgqueue:finish.restore-claim-then-fail */
ROLLBACK TO SAVEPOINT pgqueue_claim;
/* pgqueue:finish.restore-claim-then-fail #2 */
/* pgqueue:claim_restore */WITH restored AS (
    SELECT r.id, r.queue, r.payload::jsonb AS payload, r.payload_type, r.headers::jsonb AS headers,
           r.attempts, r.created_at::timestamptz AS created_at, r.run_at::timestamptz AS run_at,
           r.timeout_ms, r.workflow_id, r.batch_id, r.fairness_key, 'ready' AS state,
           (r.rest::json ->> 0)::smallint AS priority,
                       (r.rest::json ->> 1)::integer AS max_attempts,
                       (r.rest::json ->> 2)::text AS dedup_key,
                       (r.rest::json ->> 3)::text AS group_key,
                       (r.rest::json ->> 4)::uuid AS locked_by,
                       (r.rest::json ->> 5)::timestamptz AS lease_until,
                       (r.rest::json ->> 6)::text AS last_error,
                       (r.rest::json ->> 7)::timestamptz AS dead_at,
                       (r.rest::json ->> 8)::boolean AS cancel_requested,
                       (r.rest::json ->> 9)::timestamptz AS attempted_at,
                       (r.rest::json ->> 10)::smallint AS progress_percent,
                       (r.rest::json ->> 11)::text AS progress_message,
                       (r.rest::json ->> 12)::text AS debounce_key,
                       (r.rest::json ->> 13)::integer AS pending_parents
    FROM unnest(:r_ids::bigint[], :r_queues::text[], :r_payloads::text[], :r_payload_types::text[],
                :r_headers::text[], :r_attempts::int[], :r_created_ats::text[], :r_run_ats::text[],
                :r_timeouts::bigint[], :r_workflow_ids::bigint[], :r_batch_ids::bigint[],
                :r_fairness_keys::text[], :r_rests::text[])
         AS r(id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms,
              workflow_id, batch_id, fairness_key, rest)
), counted_claim_restore AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -(-count(*)), -(count(*)) FROM restored GROUP BY queue
)
INSERT INTO "pgqueue".job (id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms, workflow_id, batch_id, fairness_key, state, priority, max_attempts, dedup_key, group_key, locked_by, lease_until, last_error, dead_at, cancel_requested, attempted_at, progress_percent, progress_message, debounce_key, pending_parents) OVERRIDING SYSTEM VALUE
SELECT id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms, workflow_id, batch_id, fairness_key, state, priority, max_attempts, dedup_key, group_key, locked_by, lease_until, last_error, dead_at, cancel_requested, attempted_at, progress_percent, progress_message, debounce_key, pending_parents FROM restored;
/* pgqueue:finish.restore-claim-then-fail #3 */
/* pgqueue:fail_after_rollback */WITH failed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :dead::boolean THEN 'dead'
                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = CASE WHEN :dead::boolean THEN run_at
                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
        attempts = :attempt, max_attempts = :max_attempts,
        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING id, queue, state, workflow_id, batch_id
), counted_fail_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, dead, failed, dead_lettered)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*), count(*) FILTER (WHERE state = 'dead'), count(*), count(*) FILTER (WHERE state = 'dead') FROM failed GROUP BY queue
)
SELECT count(*) FROM failed;

-- name: finish.restore-claim-then-fail:cascades
/* pgqueue:finish.restore-claim-then-fail:cascades */
ROLLBACK TO SAVEPOINT pgqueue_claim;
/* pgqueue:finish.restore-claim-then-fail:cascades #2 */
/* pgqueue:claim_restore */WITH restored AS (
    SELECT r.id, r.queue, r.payload::jsonb AS payload, r.payload_type, r.headers::jsonb AS headers,
           r.attempts, r.created_at::timestamptz AS created_at, r.run_at::timestamptz AS run_at,
           r.timeout_ms, r.workflow_id, r.batch_id, r.fairness_key, 'ready' AS state,
           (r.rest::json ->> 0)::smallint AS priority,
                       (r.rest::json ->> 1)::integer AS max_attempts,
                       (r.rest::json ->> 2)::text AS dedup_key,
                       (r.rest::json ->> 3)::text AS group_key,
                       (r.rest::json ->> 4)::uuid AS locked_by,
                       (r.rest::json ->> 5)::timestamptz AS lease_until,
                       (r.rest::json ->> 6)::text AS last_error,
                       (r.rest::json ->> 7)::timestamptz AS dead_at,
                       (r.rest::json ->> 8)::boolean AS cancel_requested,
                       (r.rest::json ->> 9)::timestamptz AS attempted_at,
                       (r.rest::json ->> 10)::smallint AS progress_percent,
                       (r.rest::json ->> 11)::text AS progress_message,
                       (r.rest::json ->> 12)::text AS debounce_key,
                       (r.rest::json ->> 13)::integer AS pending_parents
    FROM unnest(:r_ids::bigint[], :r_queues::text[], :r_payloads::text[], :r_payload_types::text[],
                :r_headers::text[], :r_attempts::int[], :r_created_ats::text[], :r_run_ats::text[],
                :r_timeouts::bigint[], :r_workflow_ids::bigint[], :r_batch_ids::bigint[],
                :r_fairness_keys::text[], :r_rests::text[])
         AS r(id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms,
              workflow_id, batch_id, fairness_key, rest)
), counted_claim_restore AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -(-count(*)), -(count(*)) FROM restored GROUP BY queue
)
INSERT INTO "pgqueue".job (id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms, workflow_id, batch_id, fairness_key, state, priority, max_attempts, dedup_key, group_key, locked_by, lease_until, last_error, dead_at, cancel_requested, attempted_at, progress_percent, progress_message, debounce_key, pending_parents) OVERRIDING SYSTEM VALUE
SELECT id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms, workflow_id, batch_id, fairness_key, state, priority, max_attempts, dedup_key, group_key, locked_by, lease_until, last_error, dead_at, cancel_requested, attempted_at, progress_percent, progress_message, debounce_key, pending_parents FROM restored;
/* pgqueue:finish.restore-claim-then-fail:cascades #3 */
/* pgqueue:fail_after_rollback */WITH RECURSIVE failed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :dead::boolean THEN 'dead'
                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = CASE WHEN :dead::boolean THEN run_at
                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
        attempts = :attempt, max_attempts = :max_attempts,
        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING id, queue, state, workflow_id, batch_id
), counted_fail_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready, dead, failed, dead_lettered)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*), count(*) FILTER (WHERE state = 'dead'), count(*), count(*) FILTER (WHERE state = 'dead') FROM failed GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id, 'active' AS was, CASE WHEN state IN ('scheduled', 'ready', 'running') THEN 'active' ELSE state END AS now_is
    FROM failed WHERE workflow_id IS NOT NULL
), wf_ended AS (
    SELECT id, now_is AS outcome FROM wf_moved
    WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is
), wf_doomed (id, root, parent, outcome) AS (
    SELECT d.child_id, e.id, e.id, e.outcome
    FROM wf_ended e
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = e.id OFFSET 0) AS d
    WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
      AND d.child_id NOT IN (SELECT id FROM wf_moved)
    UNION
    SELECT d.child_id, x.root, x.id, x.outcome
    FROM wf_doomed x
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = x.id OFFSET 0) AS d
    WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)
), wf_sources AS (
    SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed
), wf_sources_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d USING wf_sources_sorted s
    WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
    RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome
), wf_orphaned AS (
    DELETE FROM "pgqueue".job_dependency d
    WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
    RETURNING d.child_id
), wf_satisfying AS (
    SELECT child_id, count(*) AS n FROM wf_consumed
    WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
    GROUP BY child_id
), wf_locked AS (
    SELECT l.id, c.n
    FROM (SELECT child_id, n FROM wf_satisfying
          UNION ALL
          SELECT DISTINCT id, NULL::bigint FROM wf_doomed
          ORDER BY 1) AS c (child_id, n)
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j WHERE j.id = c.child_id AND j.state = 'waiting'
                        FOR UPDATE) AS l
), wf_satisfied AS (
    SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL
), wf_cancelled AS (
    /* pgqueue:cancel_dependants */
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND j.state = 'waiting'
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_dependants AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, cancelled)
    SELECT queue, -count(*), count(*) FROM wf_cancelled GROUP BY queue
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_cancelled_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n
    SET state = f.state, finished_at = now(), error = f.error
    FROM (SELECT m.id, m.now_is AS state, NULL::text AS error
          FROM wf_moved m
          WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
          UNION ALL
          (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                 -- the node's own parent; below the first level, the node whose end started it
                 'parent ' || coalesce(p.name, x.parent::text)
                 || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                         || coalesce(r.name, x.root::text) END
                 || ' ended ' || x.outcome
          -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
          -- of the two sets: see wf_sources_sorted)
          FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
               LEFT JOIN "pgqueue".workflow_node p ON p.job_id = x.parent
               LEFT JOIN "pgqueue".workflow_node r ON r.job_id = x.root
          WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
          ORDER BY x.id, (x.parent = x.root) DESC)) AS f
    WHERE n.job_id = f.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
              UNION ALL
              SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
              UNION ALL
              SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting') AS m
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'active' AS was, CASE WHEN state IN ('waiting', 'scheduled', 'ready', 'running') THEN 'active' ELSE state END AS now_is
    FROM failed WHERE batch_id IS NOT NULL
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
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM failed;

-- name: finish.snooze-after-rollback
/* pgqueue:finish.snooze-after-rollback */
/* pgqueue:snooze_after_rollback */WITH snoozed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = statement_timestamp() + :delay_ms::bigint * interval '1 millisecond',
        attempts = :attempt - 1, locked_by = NULL, lease_until = NULL, debounce_key = NULL
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING queue, state
), counted_snooze_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*) FROM snoozed GROUP BY queue
)
SELECT count(*) FROM snoozed;

-- name: finish.undo-claim-then-snooze
/* pgqueue:finish.undo-claim-then-snooze */
ROLLBACK TO SAVEPOINT pgqueue_claim;
/* pgqueue:finish.undo-claim-then-snooze #2 */
/* pgqueue:snooze_after_rollback */WITH snoozed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = statement_timestamp() + :delay_ms::bigint * interval '1 millisecond',
        attempts = :attempt - 1, locked_by = NULL, lease_until = NULL, debounce_key = NULL
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING queue, state
), counted_snooze_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*) FROM snoozed GROUP BY queue
)
SELECT count(*) FROM snoozed;

-- name: finish.restore-claim-then-snooze
/* pgqueue:finish.restore-claim-then-snooze */
ROLLBACK TO SAVEPOINT pgqueue_claim;
/* pgqueue:finish.restore-claim-then-snooze #2 */
/* pgqueue:claim_restore */WITH restored AS (
    SELECT r.id, r.queue, r.payload::jsonb AS payload, r.payload_type, r.headers::jsonb AS headers,
           r.attempts, r.created_at::timestamptz AS created_at, r.run_at::timestamptz AS run_at,
           r.timeout_ms, r.workflow_id, r.batch_id, r.fairness_key, 'ready' AS state,
           (r.rest::json ->> 0)::smallint AS priority,
                       (r.rest::json ->> 1)::integer AS max_attempts,
                       (r.rest::json ->> 2)::text AS dedup_key,
                       (r.rest::json ->> 3)::text AS group_key,
                       (r.rest::json ->> 4)::uuid AS locked_by,
                       (r.rest::json ->> 5)::timestamptz AS lease_until,
                       (r.rest::json ->> 6)::text AS last_error,
                       (r.rest::json ->> 7)::timestamptz AS dead_at,
                       (r.rest::json ->> 8)::boolean AS cancel_requested,
                       (r.rest::json ->> 9)::timestamptz AS attempted_at,
                       (r.rest::json ->> 10)::smallint AS progress_percent,
                       (r.rest::json ->> 11)::text AS progress_message,
                       (r.rest::json ->> 12)::text AS debounce_key,
                       (r.rest::json ->> 13)::integer AS pending_parents
    FROM unnest(:r_ids::bigint[], :r_queues::text[], :r_payloads::text[], :r_payload_types::text[],
                :r_headers::text[], :r_attempts::int[], :r_created_ats::text[], :r_run_ats::text[],
                :r_timeouts::bigint[], :r_workflow_ids::bigint[], :r_batch_ids::bigint[],
                :r_fairness_keys::text[], :r_rests::text[])
         AS r(id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms,
              workflow_id, batch_id, fairness_key, rest)
), counted_claim_restore AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, ready, completed)
    SELECT queue, -(-count(*)), -(count(*)) FROM restored GROUP BY queue
)
INSERT INTO "pgqueue".job (id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms, workflow_id, batch_id, fairness_key, state, priority, max_attempts, dedup_key, group_key, locked_by, lease_until, last_error, dead_at, cancel_requested, attempted_at, progress_percent, progress_message, debounce_key, pending_parents) OVERRIDING SYSTEM VALUE
SELECT id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms, workflow_id, batch_id, fairness_key, state, priority, max_attempts, dedup_key, group_key, locked_by, lease_until, last_error, dead_at, cancel_requested, attempted_at, progress_percent, progress_message, debounce_key, pending_parents FROM restored;
/* pgqueue:finish.restore-claim-then-snooze #3 */
/* pgqueue:snooze_after_rollback */WITH snoozed AS (
    UPDATE "pgqueue".job
    SET state = CASE WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
        run_at = statement_timestamp() + :delay_ms::bigint * interval '1 millisecond',
        attempts = :attempt - 1, locked_by = NULL, lease_until = NULL, debounce_key = NULL
    WHERE id = :id AND attempts = :attempt - 1 AND state = 'ready' AND locked_by IS NULL
    RETURNING queue, state
), counted_snooze_after_rollback AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') - count(*) FROM snoozed GROUP BY queue
)
SELECT count(*) FROM snoozed;

-- name: finish.cancel-requested
/* pgqueue:finish.cancel-requested */
SELECT id FROM "pgqueue".job
WHERE id = ANY(:ids) AND state = 'running' AND locked_by = :node AND cancel_requested;

-- name: finish.cancel-running
/* pgqueue:finish.cancel-running */
/* pgqueue:cancel_running */WITH RECURSIVE cancelled AS (
    DELETE FROM "pgqueue".job j
    WHERE id = :id AND attempts = :attempt AND locked_by = :node AND j.state = 'running' AND j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_running AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, cancelled)
    SELECT queue, -count(*), count(*) FROM cancelled GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id, 'active' AS was, 'cancelled' AS now_is
    FROM cancelled WHERE workflow_id IS NOT NULL
), wf_ended AS (
    SELECT id, now_is AS outcome FROM wf_moved
    WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is
), wf_doomed (id, root, parent, outcome) AS (
    SELECT d.child_id, e.id, e.id, e.outcome
    FROM wf_ended e
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = e.id OFFSET 0) AS d
    WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
      AND d.child_id NOT IN (SELECT id FROM wf_moved)
    UNION
    SELECT d.child_id, x.root, x.id, x.outcome
    FROM wf_doomed x
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = x.id OFFSET 0) AS d
    WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)
), wf_sources AS (
    SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed
), wf_sources_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d USING wf_sources_sorted s
    WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
    RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome
), wf_orphaned AS (
    DELETE FROM "pgqueue".job_dependency d
    WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
    RETURNING d.child_id
), wf_satisfying AS (
    SELECT child_id, count(*) AS n FROM wf_consumed
    WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
    GROUP BY child_id
), wf_locked AS (
    SELECT l.id, c.n
    FROM (SELECT child_id, n FROM wf_satisfying
          UNION ALL
          SELECT DISTINCT id, NULL::bigint FROM wf_doomed
          ORDER BY 1) AS c (child_id, n)
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j WHERE j.id = c.child_id AND j.state = 'waiting'
                        FOR UPDATE) AS l
), wf_satisfied AS (
    SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL
), wf_cancelled AS (
    /* pgqueue:cancel_dependants */
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND j.state = 'waiting'
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_dependants AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, cancelled)
    SELECT queue, -count(*), count(*) FROM wf_cancelled GROUP BY queue
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_cancelled_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n
    SET state = f.state, finished_at = now(), error = f.error
    FROM (SELECT m.id, m.now_is AS state, NULL::text AS error
          FROM wf_moved m
          WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
          UNION ALL
          (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                 -- the node's own parent; below the first level, the node whose end started it
                 'parent ' || coalesce(p.name, x.parent::text)
                 || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                         || coalesce(r.name, x.root::text) END
                 || ' ended ' || x.outcome
          -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
          -- of the two sets: see wf_sources_sorted)
          FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
               LEFT JOIN "pgqueue".workflow_node p ON p.job_id = x.parent
               LEFT JOIN "pgqueue".workflow_node r ON r.job_id = x.root
          WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
          ORDER BY x.id, (x.parent = x.root) DESC)) AS f
    WHERE n.job_id = f.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
              UNION ALL
              SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
              UNION ALL
              SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting') AS m
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'active' AS was, 'cancelled' AS now_is
    FROM cancelled WHERE batch_id IS NOT NULL
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
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM cancelled;

-- name: finish.progress
/* pgqueue:finish.progress */
UPDATE "pgqueue".job j SET progress_percent = p.percent, progress_message = p.message
FROM unnest(:ids::bigint[], :attempts::int[], :percents::smallint[], :messages::text[])
     AS p(id, attempt, percent, message)
WHERE j.id = p.id AND j.attempts = p.attempt AND j.locked_by = :node AND j.state = 'running';

-- name: finish.complete-one
/* pgqueue:finish.complete-one */
/* pgqueue:complete */WITH done AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = :id AND j.locked_by = :node AND ((j.id, j.attempts) IN (SELECT * FROM unnest(:ids::bigint[], :attempts::int[]))) IS TRUE
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id,
              CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'completed' END AS state
), counted_complete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, completed, cancelled)
    SELECT queue, -count(*), count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'cancelled') FROM done GROUP BY queue
)
SELECT count(*) FROM done;

-- name: finish.complete
/* pgqueue:finish.complete */
/* pgqueue:complete */WITH done AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(:ids::bigint[]) AND j.locked_by = :node AND ((j.id, j.attempts) IN (SELECT * FROM unnest(:ids::bigint[], :attempts::int[]))) IS TRUE
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id,
              CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'completed' END AS state
), counted_complete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, completed, cancelled)
    SELECT queue, -count(*), count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'cancelled') FROM done GROUP BY queue
)
SELECT count(*) FROM done;

-- name: finish.complete:nodes
/* pgqueue:finish.complete:nodes */
/* pgqueue:complete */WITH done AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(:ids::bigint[]) AND j.locked_by = :node AND ((j.id, j.attempts) IN (SELECT * FROM unnest(:ids::bigint[], :attempts::int[]))) IS TRUE AND NOT j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id,
              CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'completed' END AS state
), counted_complete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, completed, cancelled)
    SELECT queue, -count(*), count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'cancelled') FROM done GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id FROM done WHERE workflow_id IS NOT NULL
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_moved))
    RETURNING d.child_id
), wf_parents_done AS (
    SELECT child_id, count(*) AS n FROM wf_consumed GROUP BY child_id
), wf_locked AS (
    SELECT l.id, p.n FROM wf_parents_done p
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j
                        WHERE j.id = p.child_id AND j.state = 'waiting' AND j.pending_parents <= p.n + 64
                        FOR UPDATE SKIP LOCKED) AS l
), wf_deposited AS (
    INSERT INTO "pgqueue".job_dependency_done (child_id, satisfied)
    SELECT child_id, n FROM wf_parents_done WHERE child_id NOT IN (SELECT id FROM wf_locked)
    RETURNING id
), wf_folded AS (
    DELETE FROM "pgqueue".job_dependency_done d
    WHERE EXISTS (SELECT id FROM wf_locked) AND d.child_id = ANY(ARRAY(SELECT id FROM wf_locked))
    RETURNING d.child_id, d.satisfied
), wf_satisfied AS (
    SELECT child_id, sum(n)::int AS n
    FROM (SELECT id, n FROM wf_locked
    UNION ALL
    SELECT child_id, satisfied FROM wf_folded) AS c (child_id, n)
    GROUP BY child_id
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n SET state = 'completed', finished_at = now(), output = o.output::jsonb
    FROM wf_moved m LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = m.id
    WHERE n.job_id = m.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, completed)
    SELECT workflow_id, sum(waiting), sum(active), sum(completed)
    FROM (SELECT workflow_id, 0, -1, 1 FROM (SELECT workflow_id FROM wf_moved) AS r
          UNION ALL
          SELECT workflow_id, -1, 1, 0 FROM (SELECT workflow_id FROM wf_released WHERE state <> 'waiting') AS r) AS m (workflow_id, waiting, active, completed)
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
)
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT id FROM wf_deposited) AS wf_deposits FROM done;

-- name: finish.succeeded:nodes
/* pgqueue:finish.succeeded:nodes */
WITH succeeded AS (
    SELECT * FROM unnest(:ids::bigint[], :workflow_ids::bigint[], :batch_ids::bigint[])
                  AS s(id, workflow_id, batch_id)
), wf_moved AS (
    SELECT id, workflow_id FROM succeeded WHERE workflow_id IS NOT NULL
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_moved))
    RETURNING d.child_id
), wf_parents_done AS (
    SELECT child_id, count(*) AS n FROM wf_consumed GROUP BY child_id
), wf_locked AS (
    SELECT l.id, p.n FROM wf_parents_done p
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j
                        WHERE j.id = p.child_id AND j.state = 'waiting' AND j.pending_parents <= p.n + 64
                        FOR UPDATE SKIP LOCKED) AS l
), wf_deposited AS (
    INSERT INTO "pgqueue".job_dependency_done (child_id, satisfied)
    SELECT child_id, n FROM wf_parents_done WHERE child_id NOT IN (SELECT id FROM wf_locked)
    RETURNING id
), wf_folded AS (
    DELETE FROM "pgqueue".job_dependency_done d
    WHERE EXISTS (SELECT id FROM wf_locked) AND d.child_id = ANY(ARRAY(SELECT id FROM wf_locked))
    RETURNING d.child_id, d.satisfied
), wf_satisfied AS (
    SELECT child_id, sum(n)::int AS n
    FROM (SELECT id, n FROM wf_locked
    UNION ALL
    SELECT child_id, satisfied FROM wf_folded) AS c (child_id, n)
    GROUP BY child_id
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n SET state = 'completed', finished_at = now(), output = o.output::jsonb
    FROM wf_moved m LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = m.id
    WHERE n.job_id = m.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, completed)
    SELECT workflow_id, sum(waiting), sum(active), sum(completed)
    FROM (SELECT workflow_id, 0, -1, 1 FROM (SELECT workflow_id FROM wf_moved) AS r
          UNION ALL
          SELECT workflow_id, -1, 1, 0 FROM (SELECT workflow_id FROM wf_released WHERE state <> 'waiting') AS r) AS m (workflow_id, waiting, active, completed)
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
)
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT id FROM wf_deposited) AS wf_deposits FROM succeeded;

-- name: finish.release-claim-then-succeeded:nodes
/* pgqueue:finish.release-claim-then-succeeded:nodes */
RELEASE SAVEPOINT pgqueue_claim;
/* pgqueue:finish.release-claim-then-succeeded:nodes #2 */
WITH succeeded AS (
    SELECT * FROM unnest(:ids::bigint[], :workflow_ids::bigint[], :batch_ids::bigint[])
                  AS s(id, workflow_id, batch_id)
), wf_moved AS (
    SELECT id, workflow_id FROM succeeded WHERE workflow_id IS NOT NULL
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_moved))
    RETURNING d.child_id
), wf_parents_done AS (
    SELECT child_id, count(*) AS n FROM wf_consumed GROUP BY child_id
), wf_locked AS (
    SELECT l.id, p.n FROM wf_parents_done p
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j
                        WHERE j.id = p.child_id AND j.state = 'waiting' AND j.pending_parents <= p.n + 64
                        FOR UPDATE SKIP LOCKED) AS l
), wf_deposited AS (
    INSERT INTO "pgqueue".job_dependency_done (child_id, satisfied)
    SELECT child_id, n FROM wf_parents_done WHERE child_id NOT IN (SELECT id FROM wf_locked)
    RETURNING id
), wf_folded AS (
    DELETE FROM "pgqueue".job_dependency_done d
    WHERE EXISTS (SELECT id FROM wf_locked) AND d.child_id = ANY(ARRAY(SELECT id FROM wf_locked))
    RETURNING d.child_id, d.satisfied
), wf_satisfied AS (
    SELECT child_id, sum(n)::int AS n
    FROM (SELECT id, n FROM wf_locked
    UNION ALL
    SELECT child_id, satisfied FROM wf_folded) AS c (child_id, n)
    GROUP BY child_id
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n SET state = 'completed', finished_at = now(), output = o.output::jsonb
    FROM wf_moved m LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = m.id
    WHERE n.job_id = m.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, completed)
    SELECT workflow_id, sum(waiting), sum(active), sum(completed)
    FROM (SELECT workflow_id, 0, -1, 1 FROM (SELECT workflow_id FROM wf_moved) AS r
          UNION ALL
          SELECT workflow_id, -1, 1, 0 FROM (SELECT workflow_id FROM wf_released WHERE state <> 'waiting') AS r) AS m (workflow_id, waiting, active, completed)
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
)
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT id FROM wf_deposited) AS wf_deposits FROM succeeded;

-- name: finish.complete:members
/* pgqueue:finish.complete:members */
/* pgqueue:complete */WITH done AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(:ids::bigint[]) AND j.locked_by = :node AND ((j.id, j.attempts) IN (SELECT * FROM unnest(:ids::bigint[], :attempts::int[]))) IS TRUE AND NOT j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id,
              CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'completed' END AS state
), counted_complete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, completed, cancelled)
    SELECT queue, -count(*), count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'cancelled') FROM done GROUP BY queue
), b_changes AS (
    SELECT batch_id, (id % 16)::smallint AS slot, -count(*) AS unfinished, -count(*) AS uncompleted,
           0 AS deaths, 0 AS failures
    FROM done WHERE batch_id IS NOT NULL GROUP BY 1, 2
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
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, completed)
    SELECT batch_id, -count(*), count(*) FROM (SELECT batch_id FROM done WHERE batch_id IS NOT NULL) AS m GROUP BY batch_id
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM b_woken) AS b_woken FROM done;

-- name: finish.succeeded:members
/* pgqueue:finish.succeeded:members */
WITH succeeded AS (
    SELECT * FROM unnest(:ids::bigint[], :workflow_ids::bigint[], :batch_ids::bigint[])
                  AS s(id, workflow_id, batch_id)
), b_changes AS (
    SELECT batch_id, (id % 16)::smallint AS slot, -count(*) AS unfinished, -count(*) AS uncompleted,
           0 AS deaths, 0 AS failures
    FROM succeeded WHERE batch_id IS NOT NULL GROUP BY 1, 2
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
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, completed)
    SELECT batch_id, -count(*), count(*) FROM (SELECT batch_id FROM succeeded WHERE batch_id IS NOT NULL) AS m GROUP BY batch_id
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM b_woken) AS b_woken FROM succeeded;

-- name: finish.release-claim-then-succeeded:members
/* pgqueue:finish.release-claim-then-succeeded:members */
RELEASE SAVEPOINT pgqueue_claim;
/* pgqueue:finish.release-claim-then-succeeded:members #2 */
WITH succeeded AS (
    SELECT * FROM unnest(:ids::bigint[], :workflow_ids::bigint[], :batch_ids::bigint[])
                  AS s(id, workflow_id, batch_id)
), b_changes AS (
    SELECT batch_id, (id % 16)::smallint AS slot, -count(*) AS unfinished, -count(*) AS uncompleted,
           0 AS deaths, 0 AS failures
    FROM succeeded WHERE batch_id IS NOT NULL GROUP BY 1, 2
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
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, completed)
    SELECT batch_id, -count(*), count(*) FROM (SELECT batch_id FROM succeeded WHERE batch_id IS NOT NULL) AS m GROUP BY batch_id
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM b_woken) AS b_woken FROM succeeded;

-- name: finish.complete:nodes+members
/* pgqueue:finish.complete:nodes+members */
/* pgqueue:complete */WITH done AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(:ids::bigint[]) AND j.locked_by = :node AND ((j.id, j.attempts) IN (SELECT * FROM unnest(:ids::bigint[], :attempts::int[]))) IS TRUE AND NOT j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id,
              CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'completed' END AS state
), counted_complete AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, completed, cancelled)
    SELECT queue, -count(*), count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'cancelled') FROM done GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id FROM done WHERE workflow_id IS NOT NULL
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_moved))
    RETURNING d.child_id
), wf_parents_done AS (
    SELECT child_id, count(*) AS n FROM wf_consumed GROUP BY child_id
), wf_locked AS (
    SELECT l.id, p.n FROM wf_parents_done p
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j
                        WHERE j.id = p.child_id AND j.state = 'waiting' AND j.pending_parents <= p.n + 64
                        FOR UPDATE SKIP LOCKED) AS l
), wf_deposited AS (
    INSERT INTO "pgqueue".job_dependency_done (child_id, satisfied)
    SELECT child_id, n FROM wf_parents_done WHERE child_id NOT IN (SELECT id FROM wf_locked)
    RETURNING id
), wf_folded AS (
    DELETE FROM "pgqueue".job_dependency_done d
    WHERE EXISTS (SELECT id FROM wf_locked) AND d.child_id = ANY(ARRAY(SELECT id FROM wf_locked))
    RETURNING d.child_id, d.satisfied
), wf_satisfied AS (
    SELECT child_id, sum(n)::int AS n
    FROM (SELECT id, n FROM wf_locked
    UNION ALL
    SELECT child_id, satisfied FROM wf_folded) AS c (child_id, n)
    GROUP BY child_id
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n SET state = 'completed', finished_at = now(), output = o.output::jsonb
    FROM wf_moved m LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = m.id
    WHERE n.job_id = m.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, completed)
    SELECT workflow_id, sum(waiting), sum(active), sum(completed)
    FROM (SELECT workflow_id, 0, -1, 1 FROM (SELECT workflow_id FROM wf_moved) AS r
          UNION ALL
          SELECT workflow_id, -1, 1, 0 FROM (SELECT workflow_id FROM wf_released WHERE state <> 'waiting') AS r) AS m (workflow_id, waiting, active, completed)
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_changes AS (
    SELECT batch_id, (id % 16)::smallint AS slot, -count(*) AS unfinished, -count(*) AS uncompleted,
           0 AS deaths, 0 AS failures
    FROM done WHERE batch_id IS NOT NULL GROUP BY 1, 2
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
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, completed)
    SELECT batch_id, -count(*), count(*) FROM (SELECT batch_id FROM done WHERE batch_id IS NOT NULL) AS m GROUP BY batch_id
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT id FROM wf_deposited) AS wf_deposits, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM done;

-- name: finish.succeeded:nodes+members
/* pgqueue:finish.succeeded:nodes+members */
WITH succeeded AS (
    SELECT * FROM unnest(:ids::bigint[], :workflow_ids::bigint[], :batch_ids::bigint[])
                  AS s(id, workflow_id, batch_id)
), wf_moved AS (
    SELECT id, workflow_id FROM succeeded WHERE workflow_id IS NOT NULL
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_moved))
    RETURNING d.child_id
), wf_parents_done AS (
    SELECT child_id, count(*) AS n FROM wf_consumed GROUP BY child_id
), wf_locked AS (
    SELECT l.id, p.n FROM wf_parents_done p
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j
                        WHERE j.id = p.child_id AND j.state = 'waiting' AND j.pending_parents <= p.n + 64
                        FOR UPDATE SKIP LOCKED) AS l
), wf_deposited AS (
    INSERT INTO "pgqueue".job_dependency_done (child_id, satisfied)
    SELECT child_id, n FROM wf_parents_done WHERE child_id NOT IN (SELECT id FROM wf_locked)
    RETURNING id
), wf_folded AS (
    DELETE FROM "pgqueue".job_dependency_done d
    WHERE EXISTS (SELECT id FROM wf_locked) AND d.child_id = ANY(ARRAY(SELECT id FROM wf_locked))
    RETURNING d.child_id, d.satisfied
), wf_satisfied AS (
    SELECT child_id, sum(n)::int AS n
    FROM (SELECT id, n FROM wf_locked
    UNION ALL
    SELECT child_id, satisfied FROM wf_folded) AS c (child_id, n)
    GROUP BY child_id
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n SET state = 'completed', finished_at = now(), output = o.output::jsonb
    FROM wf_moved m LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = m.id
    WHERE n.job_id = m.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, completed)
    SELECT workflow_id, sum(waiting), sum(active), sum(completed)
    FROM (SELECT workflow_id, 0, -1, 1 FROM (SELECT workflow_id FROM wf_moved) AS r
          UNION ALL
          SELECT workflow_id, -1, 1, 0 FROM (SELECT workflow_id FROM wf_released WHERE state <> 'waiting') AS r) AS m (workflow_id, waiting, active, completed)
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_changes AS (
    SELECT batch_id, (id % 16)::smallint AS slot, -count(*) AS unfinished, -count(*) AS uncompleted,
           0 AS deaths, 0 AS failures
    FROM succeeded WHERE batch_id IS NOT NULL GROUP BY 1, 2
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
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, completed)
    SELECT batch_id, -count(*), count(*) FROM (SELECT batch_id FROM succeeded WHERE batch_id IS NOT NULL) AS m GROUP BY batch_id
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT id FROM wf_deposited) AS wf_deposits, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM succeeded;

-- name: finish.release-claim-then-succeeded:nodes+members
/* pgqueue:finish.release-claim-then-succeeded:nodes+members */
RELEASE SAVEPOINT pgqueue_claim;
/* pgqueue:finish.release-claim-then-succeeded:nodes+members #2 */
WITH succeeded AS (
    SELECT * FROM unnest(:ids::bigint[], :workflow_ids::bigint[], :batch_ids::bigint[])
                  AS s(id, workflow_id, batch_id)
), wf_moved AS (
    SELECT id, workflow_id FROM succeeded WHERE workflow_id IS NOT NULL
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_moved))
    RETURNING d.child_id
), wf_parents_done AS (
    SELECT child_id, count(*) AS n FROM wf_consumed GROUP BY child_id
), wf_locked AS (
    SELECT l.id, p.n FROM wf_parents_done p
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j
                        WHERE j.id = p.child_id AND j.state = 'waiting' AND j.pending_parents <= p.n + 64
                        FOR UPDATE SKIP LOCKED) AS l
), wf_deposited AS (
    INSERT INTO "pgqueue".job_dependency_done (child_id, satisfied)
    SELECT child_id, n FROM wf_parents_done WHERE child_id NOT IN (SELECT id FROM wf_locked)
    RETURNING id
), wf_folded AS (
    DELETE FROM "pgqueue".job_dependency_done d
    WHERE EXISTS (SELECT id FROM wf_locked) AND d.child_id = ANY(ARRAY(SELECT id FROM wf_locked))
    RETURNING d.child_id, d.satisfied
), wf_satisfied AS (
    SELECT child_id, sum(n)::int AS n
    FROM (SELECT id, n FROM wf_locked
    UNION ALL
    SELECT child_id, satisfied FROM wf_folded) AS c (child_id, n)
    GROUP BY child_id
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n SET state = 'completed', finished_at = now(), output = o.output::jsonb
    FROM wf_moved m LEFT JOIN unnest(:ids::bigint[], :outputs::text[]) AS o(id, output) ON o.id = m.id
    WHERE n.job_id = m.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, completed)
    SELECT workflow_id, sum(waiting), sum(active), sum(completed)
    FROM (SELECT workflow_id, 0, -1, 1 FROM (SELECT workflow_id FROM wf_moved) AS r
          UNION ALL
          SELECT workflow_id, -1, 1, 0 FROM (SELECT workflow_id FROM wf_released WHERE state <> 'waiting') AS r) AS m (workflow_id, waiting, active, completed)
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_changes AS (
    SELECT batch_id, (id % 16)::smallint AS slot, -count(*) AS unfinished, -count(*) AS uncompleted,
           0 AS deaths, 0 AS failures
    FROM succeeded WHERE batch_id IS NOT NULL GROUP BY 1, 2
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
    INSERT INTO "pgqueue".batch_counter_delta (batch_id, active, completed)
    SELECT batch_id, -count(*), count(*) FROM (SELECT batch_id FROM succeeded WHERE batch_id IS NOT NULL) AS m GROUP BY batch_id
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT id FROM wf_deposited) AS wf_deposits, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM succeeded;

-- name: finish.cancel-running-nodes
/* pgqueue:finish.cancel-running-nodes */
/* pgqueue:cancel_running */WITH RECURSIVE cancelled AS (
    DELETE FROM "pgqueue".job j
    WHERE id = ANY(:ids::bigint[]) AND locked_by = :node AND ((id, attempts) IN (SELECT * FROM unnest(:ids::bigint[], :attempts::int[]))) IS TRUE AND j.state = 'running' AND j.cancel_requested
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_running AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, running, cancelled)
    SELECT queue, -count(*), count(*) FROM cancelled GROUP BY queue
), wf_moved AS (
    SELECT id, workflow_id, 'active' AS was, 'cancelled' AS now_is
    FROM cancelled WHERE workflow_id IS NOT NULL
), wf_ended AS (
    SELECT id, now_is AS outcome FROM wf_moved
    WHERE now_is IN ('completed', 'cancelled', 'dead') AND was <> now_is
), wf_doomed (id, root, parent, outcome) AS (
    SELECT d.child_id, e.id, e.id, e.outcome
    FROM wf_ended e
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = e.id OFFSET 0) AS d
    WHERE e.outcome <> 'completed' AND (d.policy = 'cancel' OR (d.policy = 'hold' AND e.outcome = 'cancelled'))
      AND d.child_id NOT IN (SELECT id FROM wf_moved)
    UNION
    SELECT d.child_id, x.root, x.id, x.outcome
    FROM wf_doomed x
    CROSS JOIN LATERAL (SELECT d.child_id, d.policy FROM "pgqueue".job_dependency d
                        WHERE d.parent_id = x.id OFFSET 0) AS d
    WHERE d.policy IN ('cancel', 'hold') AND d.child_id NOT IN (SELECT id FROM wf_moved)
), wf_sources AS (
    SELECT id, outcome FROM wf_ended UNION SELECT id, 'cancelled' FROM wf_doomed
), wf_sources_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(outcome ORDER BY id) AS outcomes FROM wf_sources
), wf_consumed AS (
    DELETE FROM "pgqueue".job_dependency d USING wf_sources_sorted s
    WHERE d.parent_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND NOT (d.policy = 'hold' AND s.outcomes[width_bucket(d.parent_id, s.ids)] = 'dead')
    RETURNING d.child_id, d.policy, s.outcomes[width_bucket(d.parent_id, s.ids)] AS outcome
), wf_orphaned AS (
    DELETE FROM "pgqueue".job_dependency d
    WHERE d.child_id = ANY(ARRAY(SELECT id FROM wf_sources))
      AND d.parent_id <> ALL(ARRAY(SELECT id FROM wf_sources))
    RETURNING d.child_id
), wf_satisfying AS (
    SELECT child_id, count(*) AS n FROM wf_consumed
    WHERE (outcome = 'completed' OR policy = 'run') AND child_id NOT IN (SELECT id FROM wf_sources)
    GROUP BY child_id
), wf_locked AS (
    SELECT l.id, c.n
    FROM (SELECT child_id, n FROM wf_satisfying
          UNION ALL
          SELECT DISTINCT id, NULL::bigint FROM wf_doomed
          ORDER BY 1) AS c (child_id, n)
    CROSS JOIN LATERAL (SELECT j.id FROM "pgqueue".job j WHERE j.id = c.child_id AND j.state = 'waiting'
                        FOR UPDATE) AS l
), wf_satisfied AS (
    SELECT id AS child_id, n FROM wf_locked WHERE n IS NOT NULL
), wf_cancelled AS (
    /* pgqueue:cancel_dependants */
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM wf_locked INTERSECT SELECT id FROM wf_doomed)) AND j.state = 'waiting'
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, 'cancelled' AS state
), counted_cancel_dependants AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, cancelled)
    SELECT queue, -count(*), count(*) FROM wf_cancelled GROUP BY queue
), wf_satisfied_sorted AS (
    SELECT array_agg(child_id ORDER BY child_id) AS ids, array_agg(n ORDER BY child_id) AS n
    FROM wf_satisfied
), wf_released AS (
    /* pgqueue:unblock */
    UPDATE "pgqueue".job j
    SET pending_parents = j.pending_parents - s.n[width_bucket(j.id, s.ids)],
        state = CASE WHEN j.pending_parents > s.n[width_bucket(j.id, s.ids)] THEN 'waiting'
                     WHEN j.run_at > statement_timestamp() THEN 'scheduled' ELSE 'ready' END
    FROM wf_satisfied_sorted s
    -- the EXISTS is decided once: a statement that satisfied no child does not reach the job table
    WHERE EXISTS (SELECT FROM wf_satisfied)
      AND j.id = ANY(s.ids) -- each locked by wf_locked under the guard, which is not repeated here
    RETURNING j.id, j.queue, j.state, j.workflow_id, j.fairness_key
), counted_unblock AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting') - count(*), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready') FROM wf_released GROUP BY queue
), wf_fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM wf_released WHERE fairness_key IS NOT NULL AND state = 'ready')
      AND k.active
    FOR KEY SHARE OF k
), wf_fair_refill AS (
    SELECT k.queue, k.key FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, key FROM wf_fair_held WHERE drained)
    ORDER BY k.queue, k.key FOR NO KEY UPDATE OF k
), wf_fair_refilled AS (
    UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
    FROM wf_fair_refill f WHERE k.queue = f.queue AND k.key = f.key
), wf_fair_activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT DISTINCT r.queue, r.fairness_key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
    FROM wf_released r
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM wf_fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), wf_cancelled_sorted AS MATERIALIZED (
    SELECT array_agg(id ORDER BY id) AS ids FROM wf_cancelled
), wf_nodes AS (
    UPDATE "pgqueue".workflow_node n
    SET state = f.state, finished_at = now(), error = f.error
    FROM (SELECT m.id, m.now_is AS state, NULL::text AS error
          FROM wf_moved m
          WHERE m.now_is IN ('completed', 'cancelled') AND m.was <> m.now_is
          UNION ALL
          (SELECT DISTINCT ON (x.id) x.id, 'cancelled',
                 -- the node's own parent; below the first level, the node whose end started it
                 'parent ' || coalesce(p.name, x.parent::text)
                 || CASE WHEN x.parent = x.root THEN '' ELSE ' was cancelled: '
                         || coalesce(r.name, x.root::text) END
                 || ' ended ' || x.outcome
          -- the doomed children that were cancelled, by a binary search of their sorted ids (no join
          -- of the two sets: see wf_sources_sorted)
          FROM wf_doomed x CROSS JOIN wf_cancelled_sorted c
               LEFT JOIN "pgqueue".workflow_node p ON p.job_id = x.parent
               LEFT JOIN "pgqueue".workflow_node r ON r.job_id = x.root
          WHERE c.ids[width_bucket(x.id, c.ids)] = x.id
          ORDER BY x.id, (x.parent = x.root) DESC)) AS f
    WHERE n.job_id = f.id
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT workflow_id, was, now_is FROM wf_moved WHERE was <> now_is
              UNION ALL
              SELECT workflow_id, 'waiting', 'cancelled' FROM wf_cancelled
              UNION ALL
              SELECT workflow_id, 'waiting', 'active' FROM wf_released WHERE state <> 'waiting') AS m
    GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
), b_moved AS (
    SELECT batch_id, (id % 16)::smallint AS slot, 'active' AS was, 'cancelled' AS now_is
    FROM cancelled WHERE batch_id IS NOT NULL
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
), b_crossed AS (
    SELECT batch_id,
           sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
           sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
           sum(d_deaths) AS deaths, sum(d_failures) AS failures
    FROM b_slots WHERE sealed GROUP BY batch_id
), b_batch_locked AS (
    SELECT b.id FROM "pgqueue".batch b
    WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                           WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
    ORDER BY b.id FOR NO KEY UPDATE
), b_batches AS (
    UPDATE "pgqueue".batch b
    SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
        uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
        state = CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN b.unfinished_slots + c.unfinished_slots > 0 THEN 'running'
         WHEN b.uncompleted_slots + c.uncompleted_slots = 0 THEN 'succeeded' ELSE 'failed' END,
        finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                           THEN coalesce(b.finished_at, now()) END
    FROM b_crossed c
    WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
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
SELECT count(*), ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM cancelled;

-- name: finish.extend-lease
/* pgqueue:finish.extend-lease */
UPDATE "pgqueue".job SET lease_until = greatest(lease_until, now() + :lease_ms * interval '1 millisecond')
WHERE id = :id AND attempts = :attempt AND locked_by = :node AND state = 'running';
