-- pgqueue schema, version 11: batches, sets of jobs with callbacks that fire exactly once.
-- A member is an ordinary job that names its batch. Whether a batch is done is decided by sharded counters
-- (batch_slot: sixteen rows per batch, a member's row chosen by its id), updated in the statement of every
-- member transition that changes how many members are unfinished or not completed; the batch row is touched
-- only when one of its shards reaches zero or leaves it, so that no row is hot however many members finish at
-- once. No table is rewritten: the new columns are nullable.

-- The batch a job is a member of (null for every other job).
ALTER TABLE job ADD COLUMN batch_id bigint;

-- A finished member's history row names its batch.
ALTER TABLE job_history ADD COLUMN batch_id bigint;

-- Members by batch, for cancelling a batch and paging its live members. Partial: plain jobs add no entry.
-- Built under this migration's lock: the scan of the job table is the one cost of the upgrade.
CREATE INDEX job_batch_idx ON job (batch_id, id) WHERE batch_id IS NOT NULL;

-- One row per batch. 'open' until sealed (members may be added), then 'running' until every member finished:
-- 'succeeded' when all completed, else 'failed'; or 'cancelled'. unfinished_slots and uncompleted_slots count
-- the shards with members still unfinished (not completed, dead or cancelled) or not completed, kept from the
-- seal on: a batch's onComplete fires when the first reaches zero, its onSuccess when the second does.
CREATE TABLE batch (
    id                 bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name               text        NOT NULL,
    properties         jsonb       NOT NULL DEFAULT '{}',
    state              text        NOT NULL DEFAULT 'open'
                                   CHECK (state IN ('open', 'running', 'succeeded', 'failed', 'cancelled')),
    complete_on_cancel boolean     NOT NULL DEFAULT false,
    unfinished_slots   integer     NOT NULL DEFAULT 0,
    uncompleted_slots  integer     NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    sealed_at          timestamptz,
    finished_at        timestamptz
) WITH (
    -- updated a few times in its life (seal, shards reaching zero), no indexed column but state changes
    fillfactor = 80
);

-- Listing batches by name or by state, newest first, keyset-paged.
CREATE INDEX batch_name_idx ON batch (name, id);
CREATE INDEX batch_state_idx ON batch (state, id);
-- Retention of finished batches.
CREATE INDEX batch_finished_idx ON batch (finished_at) WHERE finished_at IS NOT NULL;

-- The shards of a batch's member counts: members unfinished, members not completed, members that ever died
-- and members that ever died or were cancelled. 'sealed' is copied from the batch at the seal, so that a
-- statement that waited for the seal's lock on a shard sees, in the shard's new version, that it must decide.
CREATE TABLE batch_slot (
    batch_id    bigint   NOT NULL,
    slot        smallint NOT NULL,
    sealed      boolean  NOT NULL DEFAULT false,
    unfinished  bigint   NOT NULL DEFAULT 0,
    uncompleted bigint   NOT NULL DEFAULT 0,
    deaths      bigint   NOT NULL DEFAULT 0,
    failures    bigint   NOT NULL DEFAULT 0,
    PRIMARY KEY (batch_id, slot)
) WITH (
    -- updated by every acknowledgement of a member, never on an indexed column: room for HOT updates
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_cost_delay = 0
);

-- A batch's callbacks: the job to enqueue when its event happens, and, once it did, that job's id. The row
-- goes from pending to fired (or skipped, when the batch was cancelled) once: exactly once is this update.
CREATE TABLE batch_callback (
    batch_id     bigint      NOT NULL,
    event        text        NOT NULL CHECK (event IN ('success', 'complete', 'first_death', 'cannot_succeed')),
    queue        text        NOT NULL,
    priority     smallint    NOT NULL DEFAULT 0,
    delay_ms     bigint      NOT NULL DEFAULT 0,
    max_attempts integer     CHECK (max_attempts > 0),
    group_key    text,
    timeout_ms   bigint,
    headers      jsonb,
    state        text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'fired', 'skipped')),
    job_id       bigint,
    fired_at     timestamptz,
    PRIMARY KEY (batch_id, event)
);

-- Counts per batch, kept like the queue and workflow counters: deltas appended by the members' statements,
-- folded by the squeeze. 'active' is waiting, scheduled, ready or running: a claim does not change them.
CREATE TABLE batch_counter (
    batch_id   bigint PRIMARY KEY,
    active     bigint NOT NULL DEFAULT 0,
    dead       bigint NOT NULL DEFAULT 0,
    completed  bigint NOT NULL DEFAULT 0,
    cancelled  bigint NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE batch_counter_delta (
    batch_id  bigint NOT NULL,
    active    bigint NOT NULL DEFAULT 0,
    dead      bigint NOT NULL DEFAULT 0,
    completed bigint NOT NULL DEFAULT 0,
    cancelled bigint NOT NULL DEFAULT 0
) WITH (
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0
);

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 11';
