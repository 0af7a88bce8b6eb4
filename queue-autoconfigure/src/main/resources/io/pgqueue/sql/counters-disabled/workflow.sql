-- pgqueue's statements: workflow
--
-- Rendered from the code that composes them, for reading and review: do not edit. A change of the
-- code that changes a statement fails StatementCatalogueTests until this file is regenerated
-- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
-- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
-- as server logs, pg_stat_activity and pg_stat_statements show it.
--
-- Rendered with the schema "pgqueue" and pgqueue.counters.enabled=false, every other setting its default: only the
-- statements this setting changes, under the names of the statements they replace.

-- name: workflow.fold-dependency-counts
/* pgqueue:workflow.fold-dependency-counts */
WITH wf_children AS (
    SELECT DISTINCT child_id FROM "pgqueue".job_dependency_done
    WHERE id = ANY(:deposits::bigint[])
       OR id = ANY(ARRAY(SELECT id FROM "pgqueue".job_dependency_done WHERE :any::boolean ORDER BY id LIMIT 1000))
), wf_locked AS (
    SELECT j.id FROM "pgqueue".job j
    WHERE j.id = ANY(ARRAY(SELECT child_id FROM wf_children)) AND j.state = 'waiting'
    ORDER BY j.id FOR UPDATE
), wf_stray AS (
    DELETE FROM "pgqueue".job_dependency_done d
    WHERE d.id = ANY(ARRAY(SELECT s.id FROM "pgqueue".job_dependency_done s
                           WHERE s.child_id = ANY(ARRAY(SELECT child_id FROM wf_children))
                             AND s.child_id NOT IN (SELECT id FROM wf_locked)
                           FOR UPDATE SKIP LOCKED))
    RETURNING d.id
), wf_folded AS (
    DELETE FROM "pgqueue".job_dependency_done d
    WHERE EXISTS (SELECT id FROM wf_locked) AND d.child_id = ANY(ARRAY(SELECT id FROM wf_locked))
    RETURNING d.child_id, d.satisfied
), wf_satisfied AS (
    SELECT child_id, sum(n)::int AS n
    FROM (SELECT child_id, satisfied FROM wf_folded) AS c (child_id, n)
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
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active)
    SELECT workflow_id, -count(*), count(*) FROM (SELECT workflow_id FROM wf_released WHERE state <> 'waiting') AS m GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
)
SELECT (SELECT count(*) FROM wf_folded) + (SELECT count(*) FROM wf_stray), ARRAY(SELECT queue FROM wf_woken) AS wf_woken;

-- name: workflow.insert
/* pgqueue:workflow.insert */
/* pgqueue:submit */WITH input AS (
    SELECT n.id, n.queue, n.pending, n.name, n.parents, n.payload, n.payload_type, n.headers,
           n.priority, n.max_attempts, n.group_key, n.timeout_ms, n.fairness_key,
           coalesce(to_timestamp(n.run_at_ms / 1000.0), now() + n.delay_ms * interval '1 millisecond') AS due
    -- one unnest of every array, which walks them side by side: two unnests joined on their
    -- ordinality were a join, which a plan for a few rows ran as a nested loop (10,000 x 10,000 nodes)
    FROM unnest(:ids::bigint[], :queues::text[], :pending::int[], :names::text[], :parents::text[],
                :payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[],
                :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :group_key::text[],
                :timeout_ms::bigint[], :fairness_key::text[])
         AS n(id, queue, pending, name, parents, payload, payload_type, headers, priority, run_at_ms,
              delay_ms, max_attempts, group_key, timeout_ms, fairness_key)
), inserted AS (
    INSERT INTO "pgqueue".job (id, queue, state, priority, run_at, payload, payload_type, headers,
                              max_attempts, group_key, timeout_ms, workflow_id, pending_parents,
                              fairness_key)
    OVERRIDING SYSTEM VALUE
    SELECT id, queue, CASE WHEN pending > 0 THEN 'waiting' WHEN due > now() THEN 'scheduled' ELSE 'ready' END,
           priority, due, payload::jsonb, payload_type, headers::jsonb, max_attempts, group_key,
           timeout_ms, :workflow_id, pending, fairness_key
    FROM input
    RETURNING id, queue, state, workflow_id, fairness_key
), fair_held AS (
    SELECT k.queue, k.key, k.drained FROM "pgqueue".fair_key k
    WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL AND state = 'ready')
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
    WHERE r.fairness_key IS NOT NULL AND r.state = 'ready'
      AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
    ORDER BY r.queue, r.fairness_key
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
), nodes AS (
    INSERT INTO "pgqueue".workflow_node (workflow_id, name, job_id, queue, parents)
    SELECT :workflow_id, name, id, queue,
           ARRAY(SELECT jsonb_array_elements_text(parents::jsonb))
    FROM input
), edges AS (
    INSERT INTO "pgqueue".job_dependency (parent_id, child_id, policy)
    SELECT * FROM unnest(:edge_parents::bigint[], :edge_children::bigint[], :edge_policies::text[])
), counted_workflow AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, sum((now_is = 'waiting')::int - (was = 'waiting')::int), sum((now_is = 'active')::int - (was = 'active')::int), sum((now_is = 'dead')::int - (was = 'dead')::int), sum((now_is = 'completed')::int - (was = 'completed')::int), sum((now_is = 'cancelled')::int - (was = 'cancelled')::int)
    FROM (SELECT :workflow_id::bigint AS workflow_id, 'none' AS was,
                     CASE WHEN state = 'waiting' THEN 'waiting' ELSE 'active' END AS now_is
              FROM inserted) AS m
    GROUP BY workflow_id
)
SELECT DISTINCT queue FROM inserted WHERE state = 'ready';
