-- pgqueue schema, version 3: per-key FIFO groups, rate limits, history and retention.

-- When a job went dead, for retention.
ALTER TABLE job ADD COLUMN dead_at timestamptz;

-- Live jobs per (queue, group key) in enqueue order: the claim checks that no earlier job of the group is
-- pending and none is running.
CREATE INDEX job_group_idx ON job (queue, group_key, id) WHERE group_key IS NOT NULL AND state <> 'dead';

-- Job starts per queue in the current rate-limit window (pgqueue.queues.<name>.rate).
CREATE TABLE queue_rate (
    queue        text        PRIMARY KEY,
    window_start timestamptz NOT NULL,
    started      integer     NOT NULL DEFAULT 0
);

-- Finished jobs, when pgqueue.history.enabled; deleted after pgqueue.history.retention.
CREATE TABLE job_history (
    id           bigint      PRIMARY KEY,
    queue        text        NOT NULL,
    payload      jsonb       NOT NULL,
    payload_type text,
    headers      jsonb,
    attempts     integer     NOT NULL,
    group_key    text,
    dedup_key    text,
    created_at   timestamptz NOT NULL,
    finished_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_history_finished_idx ON job_history (finished_at);

-- What a recurring job does about ticks missed while no node ran: FIRE_ONCE or SKIP.
ALTER TABLE schedule ADD COLUMN missed text NOT NULL DEFAULT 'FIRE_ONCE' CHECK (missed IN ('FIRE_ONCE', 'SKIP'));
