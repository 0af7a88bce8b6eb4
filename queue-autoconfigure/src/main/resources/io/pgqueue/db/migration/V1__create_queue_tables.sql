-- pgqueue schema, version 1.
-- Applied by pgqueue's private Flyway into the configured schema (pgqueue.schema.name, default "pgqueue").
-- Flyway sets the search_path to that schema, so names here are unqualified. To apply by hand:
--   CREATE SCHEMA IF NOT EXISTS pgqueue; SET search_path TO pgqueue; \i V1__create_queue_tables.sql

-- One row per job that is scheduled, ready, running or dead. Finished jobs are deleted.
--   scheduled: waiting for run_at (a delay, or the backoff before a retry)
--   ready:     runnable now, in the claim index
--   running:   claimed by node locked_by until lease_until
--   dead:      out of attempts or not processable; last_error says why
CREATE TABLE job (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue        text        NOT NULL,
    state        text        NOT NULL CHECK (state IN ('scheduled', 'ready', 'running', 'dead')),
    priority     smallint    NOT NULL DEFAULT 0,
    run_at       timestamptz NOT NULL DEFAULT now(),
    payload      jsonb       NOT NULL,
    payload_type text,
    headers      jsonb,
    attempts     integer     NOT NULL DEFAULT 0,
    max_attempts integer     CHECK (max_attempts > 0),
    dedup_key    text,
    group_key    text,
    locked_by    uuid,
    lease_until  timestamptz,
    last_error   text,
    created_at   timestamptz NOT NULL DEFAULT now()
) WITH (
    -- every job row is updated at least once (claim) and then deleted: leave room for HOT updates
    fillfactor = 70,
    -- vacuum after a small absolute number of dead rows rather than a fraction of a table that churns
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_insert_scale_factor = 0.0,
    autovacuum_vacuum_insert_threshold = 10000,
    autovacuum_analyze_scale_factor = 0.0,
    autovacuum_analyze_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
);

-- The claim: highest priority first, then oldest due, then oldest id. Only ready rows are in it, so jobs
-- scheduled far ahead never slow the claim down.
CREATE INDEX job_claim_idx ON job (queue, priority DESC, run_at, id) WHERE state = 'ready';

-- Scheduled jobs by due time, for promoting them to ready.
CREATE INDEX job_scheduled_idx ON job (queue, run_at) WHERE state = 'scheduled';

-- Running jobs by owner: lease renewal per node, rescue of a stale node, lease expiry.
CREATE INDEX job_running_idx ON job (locked_by, lease_until) WHERE state = 'running';

-- Dead jobs per queue, for listing, retrying and purging them.
CREATE INDEX job_dead_idx ON job (queue, id) WHERE state = 'dead';

-- At most one pending or running job per (queue, dedup key): enqueue is INSERT ... ON CONFLICT DO NOTHING.
CREATE UNIQUE INDEX job_dedup_idx ON job (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead';

-- Counts per queue and state, never computed with COUNT(*) on the hot path. Every statement that changes
-- job states appends one delta row per queue to queue_counter_delta (no index, no row lock shared with
-- other writers); a maintenance task folds ("squeezes") the deltas into queue_counter. Readers add both.
CREATE TABLE queue_counter (
    queue         text   PRIMARY KEY,
    scheduled     bigint NOT NULL DEFAULT 0,
    ready         bigint NOT NULL DEFAULT 0,
    running       bigint NOT NULL DEFAULT 0,
    dead          bigint NOT NULL DEFAULT 0,
    enqueued      bigint NOT NULL DEFAULT 0,
    completed     bigint NOT NULL DEFAULT 0,
    failed        bigint NOT NULL DEFAULT 0,
    dead_lettered bigint NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE queue_counter_delta (
    queue         text   NOT NULL,
    scheduled     bigint NOT NULL DEFAULT 0,
    ready         bigint NOT NULL DEFAULT 0,
    running       bigint NOT NULL DEFAULT 0,
    dead          bigint NOT NULL DEFAULT 0,
    enqueued      bigint NOT NULL DEFAULT 0,
    completed     bigint NOT NULL DEFAULT 0,
    failed        bigint NOT NULL DEFAULT 0,
    dead_lettered bigint NOT NULL DEFAULT 0
) WITH (
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0
);

-- Cluster-wide settings per queue (pause, and later issues' caps and rates).
CREATE TABLE queue_state (
    queue      text        PRIMARY KEY,
    paused     boolean     NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per running JVM. A node whose heartbeat is stale has its running jobs released at once.
CREATE TABLE node (
    id           uuid        PRIMARY KEY,
    host         text        NOT NULL,
    pid          bigint      NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- Recurring jobs: each tick enqueues one job, de-duplicated on (name, tick) across the cluster.
CREATE TABLE schedule (
    name          text        PRIMARY KEY,
    queue         text        NOT NULL,
    cron          text,
    fixed_rate_ms bigint      CHECK (fixed_rate_ms > 0),
    zone          text,
    payload       jsonb,
    payload_type  text,
    next_run_at   timestamptz,
    last_run_at   timestamptz,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    CHECK ((cron IS NULL) <> (fixed_rate_ms IS NULL))
);
