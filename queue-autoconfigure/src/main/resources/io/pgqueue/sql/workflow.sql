-- pgqueue's statements: workflow
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
), wf_counted AS (
    INSERT INTO "pgqueue".workflow_counter_delta (workflow_id, waiting, active)
    SELECT workflow_id, -count(*), count(*) FROM (SELECT workflow_id FROM wf_released WHERE state <> 'waiting') AS m GROUP BY workflow_id
), wf_woken AS (
    SELECT DISTINCT queue FROM wf_released WHERE state = 'ready'
)
SELECT (SELECT count(*) FROM wf_folded) + (SELECT count(*) FROM wf_stray), ARRAY(SELECT queue FROM wf_woken) AS wf_woken;

-- name: workflow.create
/* pgqueue:workflow.create */
INSERT INTO "pgqueue".workflow (name, default_policy) VALUES (:name, :policy) RETURNING id;

-- name: workflow.allocate
/* pgqueue:workflow.allocate */
SELECT nextval(pg_get_serial_sequence('"pgqueue".job', 'id')) FROM generate_series(1, :count);

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
), counted_submit AS (
    INSERT INTO "pgqueue".queue_counter_delta (queue, waiting, scheduled, ready, enqueued)
    SELECT queue, count(*) FILTER (WHERE state = 'waiting'), count(*) FILTER (WHERE state = 'scheduled'), count(*) FILTER (WHERE state = 'ready'), count(*) FROM inserted GROUP BY queue
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

-- name: workflow.lock
/* pgqueue:workflow.lock */
SELECT name, default_policy FROM "pgqueue".workflow WHERE id = :id FOR UPDATE;

-- name: workflow.nodes
/* pgqueue:workflow.nodes */
SELECT n.name, n.job_id, coalesce(n.state, j.state) AS state
FROM "pgqueue".workflow_node n LEFT JOIN "pgqueue".job j ON j.id = n.job_id
WHERE n.workflow_id = :workflow_id AND n.name = ANY(:names::text[]);

-- name: workflow.node-of-job
/* pgqueue:workflow.node-of-job */
SELECT n.workflow_id, w.name AS workflow_name, n.name, n.parents
FROM "pgqueue".workflow_node n JOIN "pgqueue".workflow w ON w.id = n.workflow_id
WHERE n.job_id = :job_id;

-- name: workflow.outputs
/* pgqueue:workflow.outputs */
SELECT name, output::text AS output FROM "pgqueue".workflow_node
WHERE workflow_id = :workflow_id AND name = ANY(:names::text[]) AND output IS NOT NULL;

-- name: workflow.workflow
/* pgqueue:workflow.workflow */
SELECT w.id, w.name, w.created_at, coalesce(w.finished_at, CASE WHEN (CASE WHEN c.active > 0 OR (c.waiting > 0 AND c.dead = 0) THEN 'running'
     WHEN c.dead > 0 OR c.waiting > 0 THEN 'failed'
     WHEN c.cancelled > 0 THEN 'cancelled' ELSE 'completed' END) IN ('completed', 'cancelled') THEN (SELECT max(n.finished_at) FROM "pgqueue".workflow_node n WHERE n.workflow_id = w.id) END) AS finished_at, w.compensation_id, cs.state AS compensation_state, c.*
FROM "pgqueue".workflow w
LEFT JOIN LATERAL (SELECT workflow_id, sum(waiting) AS waiting, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter WHERE workflow_id = w.id
      UNION ALL
      SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter_delta WHERE workflow_id = w.id) AS counts
GROUP BY workflow_id ORDER BY workflow_id) AS c ON true
LEFT JOIN "pgqueue".workflow cw ON cw.id = w.compensation_id
LEFT JOIN LATERAL (SELECT CASE WHEN c.active > 0 OR (c.waiting > 0 AND c.dead = 0) THEN 'running'
     WHEN c.dead > 0 OR c.waiting > 0 THEN 'failed'
     WHEN c.cancelled > 0 THEN 'cancelled' ELSE 'completed' END AS state
                   FROM (SELECT workflow_id, sum(waiting) AS waiting, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter WHERE cw.id IS NOT NULL AND workflow_id = cw.id
      UNION ALL
      SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter_delta WHERE cw.id IS NOT NULL AND workflow_id = cw.id) AS counts
GROUP BY workflow_id ORDER BY workflow_id) AS c) AS cs ON true
WHERE w.id = :id;

-- name: workflow.node-page
/* pgqueue:workflow.node-page */
SELECT n.name, n.job_id, n.queue, n.parents, coalesce(n.state, j.state) AS state,
       coalesce(n.error, split_part(left(j.last_error, 1000), chr(10), 1)) AS error
FROM "pgqueue".workflow_node n LEFT JOIN "pgqueue".job j ON j.id = n.job_id
WHERE n.workflow_id = :workflow_id AND n.job_id > :after
ORDER BY n.job_id LIMIT :limit;

-- name: workflow.unfinished
/* pgqueue:workflow.unfinished */
SELECT n.job_id FROM "pgqueue".workflow_node n JOIN "pgqueue".job j ON j.id = n.job_id
WHERE n.workflow_id = :workflow_id AND n.state IS NULL AND j.state <> 'dead'
ORDER BY (j.state = 'waiting') DESC, n.job_id;

-- name: workflow.counts-by-state
/* pgqueue:workflow.counts-by-state */
SELECT state, count(*) FROM "pgqueue".workflow GROUP BY state;

-- name: workflow.squeeze
/* pgqueue:workflow.squeeze */
WITH squeezer AS (
    SELECT pg_try_advisory_xact_lock(hashtext(:lock)) AS granted
), moved AS (
    DELETE FROM "pgqueue".workflow_counter_delta WHERE (SELECT granted FROM squeezer)
    RETURNING workflow_id, waiting, active, dead, completed, cancelled
), summed AS (
    SELECT workflow_id, sum(waiting) AS waiting, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled FROM moved GROUP BY workflow_id
), folded AS (
    INSERT INTO "pgqueue".workflow_counter AS c (workflow_id, waiting, active, dead, completed, cancelled)
    SELECT workflow_id, waiting, active, dead, completed, cancelled FROM summed
    ON CONFLICT (workflow_id) DO UPDATE SET waiting = c.waiting + excluded.waiting, active = c.active + excluded.active, dead = c.dead + excluded.dead, completed = c.completed + excluded.completed, cancelled = c.cancelled + excluded.cancelled, updated_at = now()
    RETURNING workflow_id, waiting, active, dead, completed, cancelled
), stated AS (
    UPDATE "pgqueue".workflow w
    SET state = s.state,
        finished_at = CASE WHEN s.state IN ('completed', 'cancelled')
                           THEN coalesce(w.finished_at, (SELECT max(n.finished_at) FROM "pgqueue".workflow_node n WHERE n.workflow_id = w.id), now()) END
    FROM (SELECT c.workflow_id, CASE WHEN c.active > 0 OR (c.waiting > 0 AND c.dead = 0) THEN 'running'
         WHEN c.dead > 0 OR c.waiting > 0 THEN 'failed'
         WHEN c.cancelled > 0 THEN 'cancelled' ELSE 'completed' END AS state FROM folded c) AS s
    WHERE w.id = s.workflow_id AND (w.state <> s.state OR (w.finished_at IS NULL) = (s.state IN ('completed', 'cancelled')))
)
SELECT count(*) FROM moved;

-- name: workflow.expire
/* pgqueue:workflow.expire */
WITH gone AS (
    DELETE FROM "pgqueue".workflow WHERE id = ANY(ARRAY(
        SELECT id FROM "pgqueue".workflow
        WHERE finished_at < now() - :retention_ms * interval '1 millisecond'
        ORDER BY finished_at LIMIT :limit FOR UPDATE SKIP LOCKED))
    RETURNING id
), nodes AS (
    DELETE FROM "pgqueue".workflow_node n USING gone g WHERE n.workflow_id = g.id
), counts AS (
    DELETE FROM "pgqueue".workflow_counter c USING gone g WHERE c.workflow_id = g.id
), compensations AS (
    DELETE FROM "pgqueue".workflow_compensation c USING gone g WHERE c.workflow_id = g.id
)
SELECT count(*) FROM gone;

-- name: workflow.insert-compensations
/* pgqueue:workflow.insert-compensations */
INSERT INTO "pgqueue".workflow_compensation (workflow_id, node, queue, payload, payload_type)
SELECT :workflow_id, c.node, c.queue, c.payload::jsonb, c.payload_type
FROM unnest(:nodes::text[], :queues::text[], :payloads::text[], :payload_types::text[])
     AS c(node, queue, payload, payload_type)
ON CONFLICT (workflow_id, node) DO NOTHING;

-- name: workflow.compensations-due
/* pgqueue:workflow.compensations-due */
SELECT w.id FROM "pgqueue".workflow w
WHERE w.id IN (SELECT DISTINCT workflow_id FROM "pgqueue".workflow_compensation WHERE NOT started)
  AND w.state IN ('failed', 'cancelled') AND w.compensation_id IS NULL
  AND NOT EXISTS (
      SELECT 1 FROM (SELECT sum(active) AS active, sum(waiting) AS waiting
                     FROM (SELECT active, waiting FROM "pgqueue".workflow_counter WHERE workflow_id = w.id
                           UNION ALL
                           SELECT active, waiting FROM "pgqueue".workflow_counter_delta
                           WHERE workflow_id = w.id) AS parts) AS c
      WHERE c.active > 0 OR c.waiting > 0)
ORDER BY w.id LIMIT :limit
FOR UPDATE OF w SKIP LOCKED;

-- name: workflow.compensable-nodes
/* pgqueue:workflow.compensable-nodes */
SELECT n.name, n.parents, c.queue, c.payload::text AS payload, c.payload_type
FROM "pgqueue".workflow_node n
LEFT JOIN "pgqueue".workflow_compensation c
       ON c.workflow_id = n.workflow_id AND c.node = n.name AND n.state = 'completed'
WHERE n.workflow_id = :workflow_id
ORDER BY n.job_id;

-- name: workflow.name
/* pgqueue:workflow.name */
SELECT name FROM "pgqueue".workflow WHERE id = :workflow_id;

-- name: workflow.compensation-started
/* pgqueue:workflow.compensation-started */
WITH started AS (
    UPDATE "pgqueue".workflow_compensation SET started = true WHERE workflow_id = :workflow_id AND NOT started
    RETURNING node
), recorded AS (
    UPDATE "pgqueue".workflow SET compensation_id = :compensation_id WHERE id = :workflow_id
)
SELECT count(*) FROM started;

-- name: workflow.page
/* pgqueue:workflow.page */
SELECT w.id, w.name, w.created_at, coalesce(w.finished_at, CASE WHEN (CASE WHEN c.active > 0 OR (c.waiting > 0 AND c.dead = 0) THEN 'running'
     WHEN c.dead > 0 OR c.waiting > 0 THEN 'failed'
     WHEN c.cancelled > 0 THEN 'cancelled' ELSE 'completed' END) IN ('completed', 'cancelled') THEN (SELECT max(n.finished_at) FROM "pgqueue".workflow_node n WHERE n.workflow_id = w.id) END) AS finished_at, w.compensation_id, cs.state AS compensation_state, c.*
FROM (SELECT * FROM "pgqueue".workflow
      WHERE id < :before 
      ORDER BY id DESC LIMIT :limit) AS w
LEFT JOIN LATERAL (SELECT workflow_id, sum(waiting) AS waiting, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter WHERE workflow_id = w.id
      UNION ALL
      SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter_delta WHERE workflow_id = w.id) AS counts
GROUP BY workflow_id ORDER BY workflow_id) AS c ON true
LEFT JOIN "pgqueue".workflow cw ON cw.id = w.compensation_id
LEFT JOIN LATERAL (SELECT CASE WHEN c.active > 0 OR (c.waiting > 0 AND c.dead = 0) THEN 'running'
     WHEN c.dead > 0 OR c.waiting > 0 THEN 'failed'
     WHEN c.cancelled > 0 THEN 'cancelled' ELSE 'completed' END AS state
                   FROM (SELECT workflow_id, sum(waiting) AS waiting, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter WHERE cw.id IS NOT NULL AND workflow_id = cw.id
      UNION ALL
      SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter_delta WHERE cw.id IS NOT NULL AND workflow_id = cw.id) AS counts
GROUP BY workflow_id ORDER BY workflow_id) AS c) AS cs ON true
ORDER BY w.id DESC;

-- name: workflow.page+name+state
/* pgqueue:workflow.page+name+state */
SELECT w.id, w.name, w.created_at, coalesce(w.finished_at, CASE WHEN (CASE WHEN c.active > 0 OR (c.waiting > 0 AND c.dead = 0) THEN 'running'
     WHEN c.dead > 0 OR c.waiting > 0 THEN 'failed'
     WHEN c.cancelled > 0 THEN 'cancelled' ELSE 'completed' END) IN ('completed', 'cancelled') THEN (SELECT max(n.finished_at) FROM "pgqueue".workflow_node n WHERE n.workflow_id = w.id) END) AS finished_at, w.compensation_id, cs.state AS compensation_state, c.*
FROM (SELECT * FROM "pgqueue".workflow
      WHERE id < :before AND name = :name AND state = :state 
      ORDER BY id DESC LIMIT :limit) AS w
LEFT JOIN LATERAL (SELECT workflow_id, sum(waiting) AS waiting, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter WHERE workflow_id = w.id
      UNION ALL
      SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter_delta WHERE workflow_id = w.id) AS counts
GROUP BY workflow_id ORDER BY workflow_id) AS c ON true
LEFT JOIN "pgqueue".workflow cw ON cw.id = w.compensation_id
LEFT JOIN LATERAL (SELECT CASE WHEN c.active > 0 OR (c.waiting > 0 AND c.dead = 0) THEN 'running'
     WHEN c.dead > 0 OR c.waiting > 0 THEN 'failed'
     WHEN c.cancelled > 0 THEN 'cancelled' ELSE 'completed' END AS state
                   FROM (SELECT workflow_id, sum(waiting) AS waiting, sum(active) AS active, sum(dead) AS dead, sum(completed) AS completed, sum(cancelled) AS cancelled
FROM (SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter WHERE cw.id IS NOT NULL AND workflow_id = cw.id
      UNION ALL
      SELECT workflow_id, waiting, active, dead, completed, cancelled FROM "pgqueue".workflow_counter_delta WHERE cw.id IS NOT NULL AND workflow_id = cw.id) AS counts
GROUP BY workflow_id ORDER BY workflow_id) AS c) AS cs ON true
ORDER BY w.id DESC;
