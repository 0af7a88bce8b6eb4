-- pgqueue schema, version 8: pgqueue.send() as a least-privilege way to enqueue, and schemas that say which
-- older pgqueue versions can still run on them.
--
-- Rolling upgrades: nothing here locks a table. The function is replaced in place; a node of version 7 keeps
-- running on this schema (it calls send() only through its own statements, never through the function).

-- The same function, with two changes: a payload over 1 MB is refused, as QueueTemplate refuses it by default
-- (pgqueue.template.max-payload-size); and it runs with the rights of its owner (the role that migrates the
-- schema), so that a role may enqueue from SQL with EXECUTE on the function alone, without INSERT on the job
-- table. EXECUTE is therefore no longer granted to PUBLIC: grant it to the roles that enqueue from SQL:
--     GRANT USAGE ON SCHEMA pgqueue TO reporting;
--     GRANT EXECUTE ON FUNCTION pgqueue.send(text, jsonb, interval, timestamptz, integer, text, text, integer, jsonb, interval) TO reporting;
CREATE OR REPLACE FUNCTION send(p_queue text, p_payload jsonb, p_delay interval DEFAULT NULL, p_run_at timestamptz DEFAULT NULL,
                     p_priority integer DEFAULT 0, p_dedup_key text DEFAULT NULL, p_group_key text DEFAULT NULL,
                     p_max_attempts integer DEFAULT NULL, p_headers jsonb DEFAULT NULL, p_timeout interval DEFAULT NULL)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SECURITY DEFINER
    SET search_path FROM CURRENT
AS $$
DECLARE
    new_id bigint;
BEGIN
    IF p_queue IS NULL OR p_queue !~ '^[A-Za-z0-9._:-]{1,128}$' THEN
        RAISE EXCEPTION 'pgqueue.send: invalid queue name %: use 1 to 128 characters from letters, digits and . _ - :',
            coalesce(quote_literal(left(p_queue, 60)), 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_payload IS NULL THEN
        RAISE EXCEPTION 'pgqueue.send: payload must not be NULL (use ''{}'' or ''null''::jsonb)'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF octet_length(p_payload::text) > 1048576 THEN
        RAISE EXCEPTION 'pgqueue.send: payload of % bytes is larger than 1 MB', octet_length(p_payload::text)
            USING ERRCODE = 'program_limit_exceeded';
    END IF;
    IF p_delay IS NOT NULL AND p_delay < interval '0' THEN
        RAISE EXCEPTION 'pgqueue.send: delay must not be negative: %', p_delay USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_delay IS NOT NULL AND p_run_at IS NOT NULL THEN
        RAISE EXCEPTION 'pgqueue.send: give a delay or a run-at, not both' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_priority IS NULL OR p_priority NOT BETWEEN -32768 AND 32767 THEN
        RAISE EXCEPTION 'pgqueue.send: priority must be between -32768 and 32767: %', p_priority
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_max_attempts IS NOT NULL AND p_max_attempts < 1 THEN
        RAISE EXCEPTION 'pgqueue.send: max attempts must be at least 1: %', p_max_attempts
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_timeout IS NOT NULL AND p_timeout <= interval '0' THEN
        RAISE EXCEPTION 'pgqueue.send: timeout must be positive: %', p_timeout USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF length(p_dedup_key) NOT BETWEEN 1 AND 512 OR length(p_group_key) NOT BETWEEN 1 AND 512 THEN
        RAISE EXCEPTION 'pgqueue.send: dedup and group keys must have 1 to 512 characters'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_headers IS NOT NULL AND (jsonb_typeof(p_headers) <> 'object'
            OR EXISTS (SELECT 1 FROM jsonb_each(p_headers) AS h WHERE jsonb_typeof(h.value) <> 'string')
            OR length(p_headers::text) > 16384) THEN
        RAISE EXCEPTION 'pgqueue.send: headers must be a JSON object of string values, at most 16384 characters'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;

    /* pgqueue:enqueue */
    WITH input AS (
        SELECT p_queue AS queue, p_payload::text AS payload, NULL::text AS payload_type, p_headers::text AS headers,
               p_priority::smallint AS priority, coalesce(p_run_at, now() + coalesce(p_delay, interval '0')) AS due,
               p_max_attempts AS max_attempts, p_dedup_key AS dedup_key, p_group_key AS group_key,
               (extract(epoch FROM p_timeout) * 1000)::bigint AS timeout_ms
    ), inserted AS (
        INSERT INTO job (queue, state, priority, run_at, payload, payload_type, headers,
                                  max_attempts, dedup_key, group_key, timeout_ms)
        SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
               payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms
        FROM input
        ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
        RETURNING id, queue, state
    ), counted_enqueue AS (
        INSERT INTO queue_counter_delta (queue, scheduled, ready, enqueued)
        SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
    ), notified AS (
        SELECT pg_notify(notify_channel(current_schema()), queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
    )
    SELECT id INTO new_id FROM inserted LEFT JOIN notified ON true;
    RETURN new_id;
END
$$;

REVOKE ALL ON FUNCTION send(text, jsonb, interval, timestamptz, integer, text, text, integer, jsonb, interval) FROM PUBLIC;

-- The oldest pgqueue schema version whose code may run on this schema: a node that knows version 7 starts on
-- version 8 (with migrate=false, during a rolling upgrade) instead of refusing a newer schema.
CREATE OR REPLACE FUNCTION schema_compatible_from() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 7';

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 8';
