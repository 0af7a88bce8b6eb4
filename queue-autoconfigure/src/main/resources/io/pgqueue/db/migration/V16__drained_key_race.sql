-- pgqueue schema, version 16: a key a claim marks drained is never left drained under a job being sent to it.
-- A claim that finds a key empty marks it drained only when it can lock the key's row FOR UPDATE at once, which
-- it cannot while a statement making one of the key's jobs ready holds the row FOR KEY SHARE; a statement that
-- locks the key after the claim waits for the claim's commit and must then see the mark. Until now send() read
-- "drained" from its own snapshot, taken before it waited, and left the key drained with its new job, which then
-- waited for a sweep. It now reads the flag from the row its lock returned (the newest). Only the function's
-- body changes; its signature, owner, grants and comment stay.

CREATE OR REPLACE FUNCTION send(p_queue text, p_payload jsonb, p_delay interval DEFAULT NULL, p_run_at timestamptz DEFAULT NULL,
                     p_priority integer DEFAULT 0, p_dedup_key text DEFAULT NULL, p_group_key text DEFAULT NULL,
                     p_max_attempts integer DEFAULT NULL, p_headers jsonb DEFAULT NULL, p_timeout interval DEFAULT NULL,
                     p_fairness_key text DEFAULT NULL)
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
    IF length(p_dedup_key) NOT BETWEEN 1 AND 512 OR length(p_group_key) NOT BETWEEN 1 AND 512
            OR length(p_fairness_key) NOT BETWEEN 1 AND 512 THEN
        RAISE EXCEPTION 'pgqueue.send: dedup, group and fairness keys must have 1 to 512 characters'
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
               (extract(epoch FROM p_timeout) * 1000)::bigint AS timeout_ms, p_fairness_key AS fairness_key
    ), inserted AS (
        INSERT INTO job (queue, state, priority, run_at, payload, payload_type, headers,
                                  max_attempts, dedup_key, group_key, timeout_ms, fairness_key)
        SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
               payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms, fairness_key
        FROM input
        ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
        RETURNING id, queue, state, fairness_key
    ), counted_enqueue AS (
        INSERT INTO queue_counter_delta (queue, scheduled, ready, enqueued)
        SELECT queue, (state = 'scheduled')::int, (state = 'ready')::int, 1 FROM inserted
    ), fair_held AS (
        SELECT k.queue, k.key, k.drained FROM fair_key k
        WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL) AND k.active
        FOR KEY SHARE OF k
    ), fair_refilled AS (
        UPDATE fair_key k SET drained = false, updated_at = now()
        FROM fair_held h WHERE k.queue = h.queue AND k.key = h.key AND h.drained
    ), fair_activated AS (
        INSERT INTO fair_key AS k (queue, key, pass)
        SELECT DISTINCT r.queue, r.fairness_key,
               coalesce((SELECT min(a.pass) FROM fair_key a
                         WHERE a.queue = r.queue AND a.active AND NOT a.drained AND NOT a.paused), 0)
        FROM inserted r
        WHERE r.fairness_key IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM fair_held h WHERE h.queue = r.queue AND h.key = r.fairness_key)
        ON CONFLICT (queue, key) DO UPDATE
            SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
    ), notified AS (
        SELECT pg_notify(notify_channel(current_schema()), queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
    )
    SELECT id INTO new_id FROM inserted LEFT JOIN notified ON true;
    RETURN new_id;
END
$$;

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 16';
