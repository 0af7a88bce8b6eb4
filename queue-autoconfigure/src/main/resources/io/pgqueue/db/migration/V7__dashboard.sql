-- What each node runs, written with its heartbeat: its listener containers with their settings and the jobs
-- each has in flight, so that operators see every node's work from any node (dashboard, endpoint).
ALTER TABLE node ADD COLUMN containers jsonb NOT NULL DEFAULT '[]'::jsonb;

-- Dead jobs by group or dedup key (the dashboard's dead list filtered by them): the live jobs' indexes leave
-- dead ones out, and without these a filter would read every dead job of the queue. Dead rows are few and
-- change rarely, so these cost the hot path nothing.
CREATE INDEX job_dead_group_idx ON job (queue, group_key, id) WHERE state = 'dead' AND group_key IS NOT NULL;
CREATE INDEX job_dead_dedup_idx ON job (queue, dedup_key, id) WHERE state = 'dead' AND dedup_key IS NOT NULL;

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 7';
