-- pgqueue schema, version 4.

-- Running jobs by lease expiry, for the reaper. It replaces the (locked_by, lease_until) index: with every
-- claim of a node inserting under the same locked_by, acknowledgements that looked jobs up by owner walked
-- all of that node's not-yet-vacuumed entries; they now find jobs by id (primary key) and check the owner.
DROP INDEX job_running_idx;
CREATE INDEX job_lease_idx ON job (lease_until) WHERE state = 'running';
