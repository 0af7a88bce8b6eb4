-- pgqueue schema, version 14: durable execution inside a job (docs/durable-execution.md), and compensation
-- for workflows. A job's steps keep their results across its runs; a job that sleeps or waits for an event or
-- another job is an ordinary scheduled row (outside the claim index) whose run-at is its deadline, and job_wait
-- says what it waits for. New tables and one nullable column: a pgqueue of version 13 runs on this schema
-- unchanged.

-- What a job's runs completed: one row per step (or sleep, awaited event, spawned or awaited job), by name and
-- occurrence within a run. A later run of the job returns the stored result instead of running the step again.
-- Rows of a job that no longer exists are removed by maintenance (no foreign key: a plain job's deletion must
-- not pay for a look-up here).
CREATE TABLE job_step (
    job_id      bigint      NOT NULL,
    name        text        NOT NULL,
    occurrence  integer     NOT NULL CHECK (occurrence >= 1),
    kind        text        NOT NULL CHECK (kind IN ('step', 'sleep', 'event', 'spawn', 'job')),
    -- the step's result as JSON (NULL for none); result_type the Java class it was written from
    result      jsonb,
    result_type text,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, name, occurrence)
);

-- What a parked job waits for: a time (a sleep), an event's key, or another job. One row per job at most;
-- removed when the run that resumed the job got past the wait.
CREATE TABLE job_wait (
    job_id      bigint      PRIMARY KEY,
    name        text        NOT NULL,
    occurrence  integer     NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('sleep', 'event', 'job')),
    event_key   text,
    child_id    bigint,
    -- when the wait ends without its event or job (a sleep's end, a timeout); NULL for never
    until       timestamptz,
    since       timestamptz NOT NULL DEFAULT now(),
    -- set when an operator ended the wait early (QueueAdmin.wake)
    woken       boolean     NOT NULL DEFAULT false
);

CREATE INDEX job_wait_event_idx ON job_wait (event_key) WHERE event_key IS NOT NULL;

-- Events emitted for waiting jobs: the first emit of a key wins and is kept until it expires, so that an
-- emit before the await is delivered at once when the await comes.
CREATE TABLE event (
    key        text        PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 512),
    payload    jsonb,
    emitted_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);

CREATE INDEX event_emitted_idx ON event (emitted_at);
CREATE INDEX event_expires_idx ON event (expires_at);

-- Compensation for workflows: the compensating job a node declared (WorkflowNode.compensate), run when its
-- workflow fails for good after the node completed. 'started' once maintenance submitted the workflow's
-- compensation (a workflow of its own, whose id the failed workflow records in compensation_id).
CREATE TABLE workflow_compensation (
    workflow_id  bigint  NOT NULL,
    node         text    NOT NULL,
    queue        text    NOT NULL,
    payload      jsonb   NOT NULL,
    payload_type text,
    started      boolean NOT NULL DEFAULT false,
    PRIMARY KEY (workflow_id, node)
);

-- The workflows whose compensation is still to be decided: what maintenance looks at each pass.
CREATE INDEX workflow_compensation_pending_idx ON workflow_compensation (workflow_id) WHERE NOT started;

ALTER TABLE workflow ADD COLUMN compensation_id bigint;

-- pgqueue's SQL API 1.1: emit(key, payload, retention) from SQL, as QueueEvents.emit does from Java. The first
-- emit of a key wins (an expired one is replaced). The jobs waiting for the key become due now (they stay
-- scheduled: the claim of their queue promotes them) and their queues are notified, in the caller's transaction.
-- Returns whether this emit was the key's first.
CREATE FUNCTION emit(p_key text, p_payload jsonb DEFAULT NULL, p_retention interval DEFAULT interval '7 days')
    RETURNS boolean
    LANGUAGE plpgsql VOLATILE
    SECURITY DEFINER
    SET search_path FROM CURRENT
AS $$
DECLARE
    first_emit boolean;
BEGIN
    IF p_key IS NULL OR length(p_key) NOT BETWEEN 1 AND 512 THEN
        RAISE EXCEPTION 'pgqueue.emit: an event key must have 1 to 512 characters'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_retention IS NULL OR p_retention <= interval '0' THEN
        RAISE EXCEPTION 'pgqueue.emit: retention must be positive: %', p_retention
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF octet_length(p_payload::text) > 1048576 THEN
        RAISE EXCEPTION 'pgqueue.emit: payload of % bytes is larger than 1 MB', octet_length(p_payload::text)
            USING ERRCODE = 'program_limit_exceeded';
    END IF;

    /* pgqueue:emit (as durable.emit in the statement catalogue) */
    WITH emitted AS (
        INSERT INTO event AS e (key, payload, expires_at) VALUES (p_key, p_payload, now() + p_retention)
        ON CONFLICT (key) DO UPDATE
            SET payload = excluded.payload, emitted_at = now(), expires_at = excluded.expires_at
            WHERE e.expires_at <= now()
        RETURNING key
    ), due AS (
        UPDATE job j SET run_at = now()
        FROM job_wait w
        WHERE w.event_key IN (SELECT key FROM emitted) AND j.id = w.job_id AND j.state = 'scheduled'
        RETURNING j.queue
    ), notified AS (
        SELECT pg_notify(notify_channel(current_schema()), queue) FROM (SELECT DISTINCT queue FROM due) AS woken
    )
    SELECT EXISTS (SELECT 1 FROM emitted) INTO first_emit FROM (SELECT count(*) FROM notified) AS sent;
    RETURN first_emit;
END
$$;

REVOKE ALL ON FUNCTION emit(text, jsonb, interval) FROM PUBLIC;

COMMENT ON FUNCTION emit(text, jsonb, interval) IS
    'pgqueue SQL API 1.1: emits an event for jobs waiting for its key (the first emit of a key wins) and returns '
    'whether this emit was the first; see docs/durable-execution.md';

CREATE OR REPLACE FUNCTION api_version() RETURNS text
    LANGUAGE sql STABLE
AS $$SELECT '1.1'$$;

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 14';
