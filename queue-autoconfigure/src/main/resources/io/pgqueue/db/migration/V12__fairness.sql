-- pgqueue schema, version 12: fairness inside a queue. A job may name the key it is charged to (a tenant, an
-- account); a fair queue's claim takes its jobs key by key, each key in proportion to its weight (stride
-- scheduling: a key's pass grows by 1/weight per job claimed, and the claim serves the lowest passes first).
-- No table is rewritten: the new column is nullable, and plain jobs add no index entry.

-- The key a job is charged to (null for jobs of queues that are not fair).
ALTER TABLE job ADD COLUMN fairness_key text;

-- A key's ready jobs in claim order, for the fair claim. Partial: plain jobs add no entry. "Ready" is written
-- as a range so that the fair claim, which says it the same way, can use this index only: the queue's claim
-- index does not follow from it, and a planner misled by one dominant key would otherwise walk that index.
CREATE INDEX job_fair_ready_idx ON job (queue, fairness_key, priority DESC, run_at, id)
    WHERE fairness_key IS NOT NULL AND state >= 'ready' AND state <= 'ready';

-- One row per (queue, key) that ever had a job: its pass (the virtual time of the key's claims), the weight
-- and pause set at run time, and whether it may have ready jobs. A key is 'active' from the statement that
-- makes one of its jobs ready (send, promotion, release of a workflow node, retry of a dead job) until a sweep
-- finds it without ready or running jobs; 'drained' marks a key a claim left empty: claims pass it by, the
-- statements that make its jobs ready take the mark off, and the sweep deactivates it unless a job arrived. Statements that make a job ready hold the key's row
-- FOR KEY SHARE (or activate it), the sweep takes it FOR UPDATE and looks with a fresh snapshot, so a key
-- is never deactivated under a job that is being made ready.
CREATE TABLE fair_key (
    queue      text        NOT NULL,
    key        text        NOT NULL,
    pass       float8      NOT NULL DEFAULT 0,
    weight     float8      CHECK (weight IS NULL OR weight > 0),
    active     boolean     NOT NULL DEFAULT true,
    drained    boolean     NOT NULL DEFAULT false,
    sweeping   boolean     NOT NULL DEFAULT false,
    paused     boolean     NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (queue, key)
) WITH (
    -- every claim moves the passes of the keys it takes from: a small table of hot rows, vacuumed early
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0
);

-- The claim reads the keys it may serve (active, not drained, not paused) by pass; sweeps find the drained ones.
CREATE INDEX fair_key_pass_idx ON fair_key (queue, pass, key) WHERE active AND NOT drained AND NOT paused;
CREATE INDEX fair_key_drained_idx ON fair_key (queue) WHERE drained;

-- pgqueue.send() takes the key as its last parameter. Replacing the function drops the EXECUTE grants the
-- application gave on it: they are recorded first and given again to the new function.
CREATE TEMPORARY TABLE pgqueue_send_grantees AS
    SELECT DISTINCT grantee FROM information_schema.routine_privileges
    WHERE routine_schema = current_schema() AND routine_name = 'send' AND privilege_type = 'EXECUTE'
      AND grantee <> current_user;

DROP FUNCTION send(text, jsonb, interval, timestamptz, integer, text, text, integer, jsonb, interval);

CREATE FUNCTION send(p_queue text, p_payload jsonb, p_delay interval DEFAULT NULL, p_run_at timestamptz DEFAULT NULL,
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
        SELECT k.queue, k.key FROM fair_key k
        WHERE (k.queue, k.key) IN (SELECT queue, fairness_key FROM inserted WHERE fairness_key IS NOT NULL) AND k.active
        FOR KEY SHARE OF k
    ), fair_refilled AS (
        UPDATE fair_key k SET drained = false, updated_at = now()
        FROM fair_held h WHERE k.queue = h.queue AND k.key = h.key AND k.drained
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

REVOKE ALL ON FUNCTION send(text, jsonb, interval, timestamptz, integer, text, text, integer, jsonb, interval, text)
    FROM PUBLIC;

DO $$
DECLARE
    g record;
BEGIN
    FOR g IN SELECT grantee FROM pgqueue_send_grantees LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION send(text, jsonb, interval, timestamptz, integer, text, text, '
                       'integer, jsonb, interval, text) TO %I', g.grantee);
    END LOOP;
END
$$;

DROP TABLE pgqueue_send_grantees;

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 12';
