-- pgqueue schema, version 6: job control (look-up, cancel, snooze, timeouts, progress, output), dedup windows,
-- debounce, enqueue from SQL and schedules operated at run time.

-- A running job whose cancellation was requested: its node interrupts the handler at its next heartbeat, and
-- whatever the handler does, the job finishes as cancelled.
ALTER TABLE job ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false;
-- The most a handler may run on this job (SendOptions.timeout), or null for the listener's setting.
ALTER TABLE job ADD COLUMN timeout_ms bigint CHECK (timeout_ms > 0);
-- When the current (or last) attempt was claimed.
ALTER TABLE job ADD COLUMN attempted_at timestamptz;
-- What the handler reported of its progress while running (JobContext.progress).
ALTER TABLE job ADD COLUMN progress_percent smallint CHECK (progress_percent BETWEEN 0 AND 100);
ALTER TABLE job ADD COLUMN progress_message text;
-- Debounced sends (SendOptions.debounce): while a job of the key waits for its quiet window, later sends
-- replace its payload and push its run-at back instead of adding a job.
ALTER TABLE job ADD COLUMN debounce_key text;
CREATE UNIQUE INDEX job_debounce_idx ON job (queue, debounce_key) WHERE state = 'scheduled' AND debounce_key IS NOT NULL;

-- Listing a queue's jobs by state, newest first, keyset-paged (QueueAdmin.jobs): one index range per state.
-- It replaces the dead-jobs index, which it covers.
CREATE INDEX job_queue_state_idx ON job (queue, state, id);
DROP INDEX job_dead_idx;

-- Finding jobs by a header value; only jobs sent with headers are in it.
CREATE INDEX job_headers_idx ON job USING gin (headers jsonb_path_ops) WHERE headers IS NOT NULL;

-- Finished jobs keep how they finished and what they produced.
ALTER TABLE job_history ADD COLUMN state text NOT NULL DEFAULT 'completed' CHECK (state IN ('completed', 'cancelled'));
ALTER TABLE job_history ADD COLUMN output jsonb;
ALTER TABLE job_history ADD COLUMN last_error text;
ALTER TABLE job_history ADD COLUMN run_at timestamptz;
ALTER TABLE job_history ADD COLUMN attempted_at timestamptz;
CREATE INDEX job_history_queue_state_idx ON job_history (queue, state, id);

-- The total of cancelled jobs.
ALTER TABLE queue_counter ADD COLUMN cancelled bigint NOT NULL DEFAULT 0;
ALTER TABLE queue_counter_delta ADD COLUMN cancelled bigint NOT NULL DEFAULT 0;

-- Dedup windows (SendOptions.dedupFor): a key sent with a window is taken until expires_at, whether or not
-- its job has finished. Expired rows are reused by the next send of the key and deleted by maintenance.
CREATE TABLE dedup_window (
    queue      text        NOT NULL,
    dedup_key  text        NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (queue, dedup_key)
);
CREATE INDEX dedup_window_expires_idx ON dedup_window (expires_at);

-- Schedules operated at run time: a paused schedule fires no tick (and stays paused when a node restarts and
-- declares it again); one whose cron or rate was changed at run time keeps that definition over the declared one.
ALTER TABLE schedule ADD COLUMN paused boolean NOT NULL DEFAULT false;
ALTER TABLE schedule ADD COLUMN overridden boolean NOT NULL DEFAULT false;

-- The NOTIFY channel of the queues in a schema: 'pgqueue_' and the schema name, or for a long name its
-- first 54 characters, '_' and the hash Java's String.hashCode gives the name (as pgqueue's nodes compute it).
CREATE FUNCTION notify_channel(p_schema text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT
AS $$
DECLARE
    channel text := 'pgqueue_' || p_schema;
    hash bigint := 0;
BEGIN
    IF length(channel) <= 63 THEN
        RETURN channel;
    END IF;
    FOR i IN 1 .. length(p_schema) LOOP
        hash := (hash * 31 + ascii(substr(p_schema, i, 1))) % 4294967296;
    END LOOP;
    RETURN substr(channel, 1, 54) || '_' || lpad(to_hex(hash), 8, '0');
END
$$;

-- Enqueue from SQL: a trigger, a migration, psql or a service in another language. The same checks as
-- QueueTemplate, the same insert (ENQUEUE of the transition table, with its counter deltas) and the same
-- NOTIFY at commit. Returns the new job's id, or NULL when the dedup key is already live in the queue.
CREATE FUNCTION send(p_queue text, p_payload jsonb, p_delay interval DEFAULT NULL, p_run_at timestamptz DEFAULT NULL,
                     p_priority integer DEFAULT 0, p_dedup_key text DEFAULT NULL, p_group_key text DEFAULT NULL,
                     p_max_attempts integer DEFAULT NULL, p_headers jsonb DEFAULT NULL, p_timeout interval DEFAULT NULL)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE
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

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 6';
