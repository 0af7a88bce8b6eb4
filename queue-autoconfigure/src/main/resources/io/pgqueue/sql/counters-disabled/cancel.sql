-- pgqueue's statements: cancel
--
-- Rendered from the code that composes them, for reading and review: do not edit. A change of the
-- code that changes a statement fails StatementCatalogueTests until this file is regenerated
-- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
-- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
-- as server logs, pg_stat_activity and pg_stat_statements show it.
--
-- Rendered with the schema "pgqueue" and pgqueue.counters.enabled=false, every other setting its default: only the
-- statements this setting changes, under the names of the statements they replace.

-- name: cancel.jobs
/* pgqueue:cancel.jobs */
/* pgqueue:cancel */WITH RECURSIVE cancelled AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM "pgqueue".job WHERE id = ANY(:ids::bigint[])
                           AND state IN ('waiting', 'scheduled', 'ready') FOR UPDATE SKIP LOCKED))
      AND j.state IN ('waiting', 'scheduled', 'ready')
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, j.state AS from_state, 'cancelled' AS state
), windows_released AS (
    DELETE FROM "pgqueue".dedup_window w USING cancelled c
    WHERE w.queue = c.queue AND w.dedup_key = c.dedup_key
), requested AS (
    UPDATE "pgqueue".job SET cancel_requested = true
    WHERE id = ANY(:ids::bigint[]) AND state = 'running'
    RETURNING id
), wf_moved AS (
    SELECT id, workflow_id, CASE WHEN from_state IN ('scheduled', 'ready', 'running') THEN 'active' ELSE from_state END AS was, 'cancelled' AS now_is
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
    SELECT batch_id, (id % 16)::smallint AS slot, CASE WHEN from_state IN ('waiting', 'scheduled', 'ready', 'running') THEN 'active' ELSE from_state END AS was, 'cancelled' AS now_is
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
), b_woken AS (
    SELECT DISTINCT queue FROM b_enqueued WHERE state = 'ready'
)
SELECT id, true AS finished, ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM cancelled
UNION ALL SELECT id, false, NULL::text[], NULL::text[] FROM requested;

-- name: cancel.batch-members
/* pgqueue:cancel.batch-members */
/* pgqueue:cancel */WITH RECURSIVE cancelled AS (
    DELETE FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT id FROM "pgqueue".job WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job WHERE batch_id = :batch_id AND state IN ('waiting', 'scheduled', 'ready')))
                           AND state IN ('waiting', 'scheduled', 'ready') FOR UPDATE SKIP LOCKED))
      AND j.state IN ('waiting', 'scheduled', 'ready')
    RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
    j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id, j.state AS from_state, 'cancelled' AS state
), windows_released AS (
    DELETE FROM "pgqueue".dedup_window w USING cancelled c
    WHERE w.queue = c.queue AND w.dedup_key = c.dedup_key
), wf_moved AS (
    SELECT id, workflow_id, CASE WHEN from_state IN ('scheduled', 'ready', 'running') THEN 'active' ELSE from_state END AS was, 'cancelled' AS now_is
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
    SELECT batch_id, (id % 16)::smallint AS slot, CASE WHEN from_state IN ('waiting', 'scheduled', 'ready', 'running') THEN 'active' ELSE from_state END AS was, 'cancelled' AS now_is
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
), b_woken AS (
    SELECT DISTINCT queue FROM b_enqueued WHERE state = 'ready'
)
SELECT id, true AS finished, ARRAY(SELECT queue FROM wf_woken) AS wf_woken, ARRAY(SELECT queue FROM b_woken) AS b_woken FROM cancelled;
