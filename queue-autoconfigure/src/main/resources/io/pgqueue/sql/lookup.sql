-- pgqueue's statements: lookup
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

-- name: lookup.by-id
/* pgqueue:lookup.by-id */
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job WHERE id = :id)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, NULL::int AS max_attempts,
       0::smallint AS priority, coalesce(run_at, created_at) AS run_at, created_at, attempted_at,
       finished_at, last_error AS last_error, output::text AS output, NULL::smallint AS progress_percent,
       NULL::text AS progress_message, false AS cancel_requested, group_key, dedup_key,
       NULL::bigint AS timeout_ms, NULL::uuid AS locked_by, NULL::timestamptz AS lease_until, workflow_id,
       batch_id, NULL::text AS fairness_key
FROM "pgqueue".job_history WHERE id = :id)
LIMIT 1;

-- name: lookup.page:waiting+content
/* pgqueue:lookup.page:waiting+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'waiting' AND (state, id) < ('waiting', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:scheduled+content
/* pgqueue:lookup.page:scheduled+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'scheduled' AND (state, id) < ('scheduled', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:ready+content
/* pgqueue:lookup.page:ready+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'ready' AND (state, id) < ('ready', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:running+content
/* pgqueue:lookup.page:running+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'running' AND (state, id) < ('running', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:dead+content
/* pgqueue:lookup.page:dead+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'dead' AND (state, id) < ('dead', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:completed+content
/* pgqueue:lookup.page:completed+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, NULL::int AS max_attempts,
       0::smallint AS priority, coalesce(run_at, created_at) AS run_at, created_at, attempted_at,
       finished_at, last_error AS last_error, output::text AS output, NULL::smallint AS progress_percent,
       NULL::text AS progress_message, false AS cancel_requested, group_key, dedup_key,
       NULL::bigint AS timeout_ms, NULL::uuid AS locked_by, NULL::timestamptz AS lease_until, workflow_id,
       batch_id, NULL::text AS fairness_key
FROM "pgqueue".job_history
    WHERE queue = :queue AND state = 'completed' AND id < :before ORDER BY id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:cancelled+content
/* pgqueue:lookup.page:cancelled+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, NULL::int AS max_attempts,
       0::smallint AS priority, coalesce(run_at, created_at) AS run_at, created_at, attempted_at,
       finished_at, last_error AS last_error, output::text AS output, NULL::smallint AS progress_percent,
       NULL::text AS progress_message, false AS cancel_requested, group_key, dedup_key,
       NULL::bigint AS timeout_ms, NULL::uuid AS locked_by, NULL::timestamptz AS lease_until, workflow_id,
       batch_id, NULL::text AS fairness_key
FROM "pgqueue".job_history
    WHERE queue = :queue AND state = 'cancelled' AND id < :before ORDER BY id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:waiting-scheduled-ready-running-dead+content
/* pgqueue:lookup.page:waiting-scheduled-ready-running-dead+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'waiting' AND (state, id) < ('waiting', :before) ORDER BY state DESC, id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'scheduled' AND (state, id) < ('scheduled', :before) ORDER BY state DESC, id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'ready' AND (state, id) < ('ready', :before) ORDER BY state DESC, id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'running' AND (state, id) < ('running', :before) ORDER BY state DESC, id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'dead' AND (state, id) < ('dead', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:waiting-scheduled-ready-running-dead
/* pgqueue:lookup.page:waiting-scheduled-ready-running-dead */
SELECT * FROM (
(SELECT id, queue, state, NULL::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, split_part(left(last_error, 1000), chr(10), 1) AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'waiting' AND (state, id) < ('waiting', :before) ORDER BY state DESC, id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, NULL::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, split_part(left(last_error, 1000), chr(10), 1) AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'scheduled' AND (state, id) < ('scheduled', :before) ORDER BY state DESC, id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, NULL::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, split_part(left(last_error, 1000), chr(10), 1) AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'ready' AND (state, id) < ('ready', :before) ORDER BY state DESC, id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, NULL::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, split_part(left(last_error, 1000), chr(10), 1) AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'running' AND (state, id) < ('running', :before) ORDER BY state DESC, id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, NULL::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, split_part(left(last_error, 1000), chr(10), 1) AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND state >= 'dead' AND (state, id) < ('dead', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:ready+group-key+content
/* pgqueue:lookup.page:ready+group-key+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND group_key = :group_key AND state = 'ready' AND id < :before ORDER BY id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:ready+dedup-key+content
/* pgqueue:lookup.page:ready+dedup-key+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND dedup_key = :dedup_key AND state = 'ready' AND id < :before ORDER BY id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:ready+header+content
/* pgqueue:lookup.page:ready+header+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND headers @> jsonb_build_object(:header_name::text, :header_value::text) AND state >= 'ready' AND (state, id) < ('ready', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:completed+enqueued-after+content
/* pgqueue:lookup.page:completed+enqueued-after+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, NULL::int AS max_attempts,
       0::smallint AS priority, coalesce(run_at, created_at) AS run_at, created_at, attempted_at,
       finished_at, last_error AS last_error, output::text AS output, NULL::smallint AS progress_percent,
       NULL::text AS progress_message, false AS cancel_requested, group_key, dedup_key,
       NULL::bigint AS timeout_ms, NULL::uuid AS locked_by, NULL::timestamptz AS lease_until, workflow_id,
       batch_id, NULL::text AS fairness_key
FROM "pgqueue".job_history
    WHERE queue = :queue AND created_at >= :enqueued_after::timestamptz AND finished_at >= :enqueued_after::timestamptz AND state = 'completed' AND id < :before ORDER BY id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:ready+enqueued-before+content
/* pgqueue:lookup.page:ready+enqueued-before+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND created_at < :enqueued_before::timestamptz AND state >= 'ready' AND (state, id) < ('ready', :before) ORDER BY state DESC, id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;

-- name: lookup.page:waiting-scheduled-ready-running-dead+group-key+content
/* pgqueue:lookup.page:waiting-scheduled-ready-running-dead+group-key+content */
SELECT * FROM (
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND group_key = :group_key AND state = 'waiting' AND id < :before ORDER BY id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND group_key = :group_key AND state = 'scheduled' AND id < :before ORDER BY id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND group_key = :group_key AND state = 'ready' AND id < :before ORDER BY id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND group_key = :group_key AND state = 'running' AND id < :before ORDER BY id DESC LIMIT :limit)
UNION ALL
(SELECT id, queue, state, payload::text AS payload, payload_type, ARRAY(SELECT key FROM jsonb_each_text(headers) ORDER BY key) AS header_names,
       ARRAY(SELECT value FROM jsonb_each_text(headers) ORDER BY key) AS header_values, attempts, max_attempts,
       priority, run_at, created_at, attempted_at, dead_at AS finished_at, last_error AS last_error,
       NULL::text AS output, progress_percent, progress_message, cancel_requested, group_key, dedup_key,
       timeout_ms, locked_by, lease_until, workflow_id, batch_id, fairness_key
FROM "pgqueue".job
    WHERE queue = :queue AND group_key = :group_key AND state = 'dead' AND id < :before ORDER BY id DESC LIMIT :limit)
) AS jobs ORDER BY id DESC LIMIT :limit;
