-- pgqueue schema, version 15: a node's finished parents no longer wait for each other on their child's row.
-- A parent's statement subtracts the edges it satisfied from its child's pending_parents when it can lock the
-- child's row at once (FOR UPDATE SKIP LOCKED). When another transaction holds that row (a fan-in's parents
-- finishing together), it leaves the count here instead, as a row of its own, and commits without waiting;
-- whoever locks the child next folds the committed counts into pending_parents (the parent's node right after
-- its commit, the next parent, or maintenance), and the child is released exactly when the count reaches zero,
-- under its row lock as before. No table is rewritten; job_dependency's column statistics get a fixed distinct
-- count (below), which takes a SHARE UPDATE EXCLUSIVE lock on it for a moment.

CREATE TABLE job_dependency_done (
    id        bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    child_id  bigint  NOT NULL,
    satisfied integer NOT NULL CHECK (satisfied > 0)
) WITH (
    -- every row is inserted and soon deleted: vacuum and analyse after absolute numbers of rows, as the job table
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.0,
    autovacuum_vacuum_insert_threshold = 1000,
    autovacuum_analyze_scale_factor = 0.0,
    autovacuum_analyze_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0
);

-- Folding a child's counts.
CREATE INDEX job_dependency_done_child_idx ON job_dependency_done (child_id);

-- Edges and counts are found by their parent's or child's id among statements' own rows. ANALYZE taken while a
-- fan-out's edges (one parent, thousands of children) or a fan-in's counts (one child) fill the table records a
-- single distinct value, and the planner then reads the whole table — dead rows included — for every node that
-- finishes. The estimate is fixed at "about two rows per value", which keeps these look-ups on their indexes.
ALTER TABLE job_dependency ALTER COLUMN parent_id SET (n_distinct = -0.5), ALTER COLUMN child_id SET (n_distinct = -0.5);
ALTER TABLE job_dependency_done ALTER COLUMN child_id SET (n_distinct = -0.5);

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 15';
