-- What each node runs, written with its heartbeat: its listener containers with their settings and the jobs
-- each has in flight, so that operators see every node's work from any node (dashboard, endpoint).
ALTER TABLE node ADD COLUMN containers jsonb NOT NULL DEFAULT '[]'::jsonb;

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 7';
