-- pgqueue schema, version 10: workflows, jobs that wait for other jobs.
-- A workflow is a graph of jobs (its nodes) submitted together. A node with unfinished parents is 'waiting':
-- outside the claim index, it becomes ready (or scheduled) in the transaction that finishes its last parent.
-- No table is rewritten: the new columns are nullable or have constant defaults.

-- The state check gains 'waiting'. NOT VALID, and never validated: every existing row passed the stricter
-- check it replaces, and validating would scan the job table while this migration's transaction holds its
-- ACCESS EXCLUSIVE lock (new and updated rows are checked all the same).
ALTER TABLE job DROP CONSTRAINT job_state_check;
ALTER TABLE job ADD CONSTRAINT job_state_check
    CHECK (state IN ('waiting', 'scheduled', 'ready', 'running', 'dead')) NOT VALID;

-- The workflow a job is a node of (null for plain jobs), and how many of its parents have not finished yet.
ALTER TABLE job ADD COLUMN workflow_id bigint;
ALTER TABLE job ADD COLUMN pending_parents integer;

-- A finished node's history row names its workflow (the partitions follow their parent; no rewrite).
ALTER TABLE job_history ADD COLUMN workflow_id bigint;

-- Waiting jobs are counted per queue like every live state.
ALTER TABLE queue_counter ADD COLUMN waiting bigint NOT NULL DEFAULT 0;
ALTER TABLE queue_counter_delta ADD COLUMN waiting bigint NOT NULL DEFAULT 0;

-- One row per submitted workflow. Its state is derived from its counts (workflow_counter) and stored by the
-- counter squeeze, for listing by state; finished_at starts the retention of the workflow and its outputs.
CREATE TABLE workflow (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text        NOT NULL,
    state       text        NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'failed', 'completed', 'cancelled')),
    -- the policy of edges added later (a dynamic fan-out) that name none
    default_policy text     NOT NULL DEFAULT 'cancel' CHECK (default_policy IN ('cancel', 'run', 'hold')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);

-- Listing workflows by name or by state, newest first, keyset-paged.
CREATE INDEX workflow_name_idx ON workflow (name, id);
CREATE INDEX workflow_state_idx ON workflow (state, id);
-- Retention of finished workflows.
CREATE INDEX workflow_finished_idx ON workflow (finished_at) WHERE finished_at IS NOT NULL;

-- One row per node: its name, its job, its parents' names (the edges, kept for look-ups after the
-- dependency rows were consumed), and once its job finished: how (completed or cancelled), its output (the
-- handler's return value, handed on to its dependants whatever pgqueue.history.enabled says) and why it
-- was cancelled. While the job lives its state is the job row's.
CREATE TABLE workflow_node (
    workflow_id bigint      NOT NULL,
    name        text        NOT NULL,
    job_id      bigint      NOT NULL,
    queue       text        NOT NULL,
    parents     text[]      NOT NULL DEFAULT '{}',
    state       text        CHECK (state IN ('completed', 'cancelled')),
    output      jsonb,
    error       text,
    finished_at timestamptz,
    PRIMARY KEY (workflow_id, name)
) WITH (
    -- each row is updated once, when its node finishes (no indexed column changes): room for a HOT update
    fillfactor = 80
);

CREATE UNIQUE INDEX workflow_node_job_idx ON workflow_node (job_id);

-- The edges not consumed yet: a child waits for each of its parents' rows here. The finishing parent's
-- statement deletes its edges as it releases, cancels or holds its children, so finished workflows leave none.
CREATE TABLE job_dependency (
    parent_id bigint NOT NULL,
    child_id  bigint NOT NULL,
    policy    text   NOT NULL CHECK (policy IN ('cancel', 'run', 'hold')),
    PRIMARY KEY (parent_id, child_id)
) WITH (
    -- every row is inserted and soon deleted: vacuum and analyse after absolute numbers of rows, as the job table
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_insert_scale_factor = 0.0,
    autovacuum_vacuum_insert_threshold = 10000,
    autovacuum_analyze_scale_factor = 0.0,
    autovacuum_analyze_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
);

-- Dropping a cancelled child's edges from parents that have not finished.
CREATE INDEX job_dependency_child_idx ON job_dependency (child_id);

-- Counts per workflow, kept like the queue counters: deltas appended by the statements that change a node's
-- standing (no hot row however many nodes finish at once), folded by the squeeze. 'active' is scheduled,
-- ready or running: a workflow's counts change only when a node starts waiting, is released, dies, is retried
-- or finishes, never when it is claimed.
CREATE TABLE workflow_counter (
    workflow_id bigint PRIMARY KEY,
    waiting     bigint NOT NULL DEFAULT 0,
    active      bigint NOT NULL DEFAULT 0,
    dead        bigint NOT NULL DEFAULT 0,
    completed   bigint NOT NULL DEFAULT 0,
    cancelled   bigint NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workflow_counter_delta (
    workflow_id bigint NOT NULL,
    waiting     bigint NOT NULL DEFAULT 0,
    active      bigint NOT NULL DEFAULT 0,
    dead        bigint NOT NULL DEFAULT 0,
    completed   bigint NOT NULL DEFAULT 0,
    cancelled   bigint NOT NULL DEFAULT 0
) WITH (
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0
);

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 10';
