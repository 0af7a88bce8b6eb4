-- pgqueue schema, version 9: the job history partitioned by finish time.
--
-- job_history becomes a table range-partitioned on finished_at. Retention drops whole partitions (no DELETE,
-- no dead rows, nothing for vacuum to do), and pages of history read only the partitions their bounds allow.
-- Partitions ahead of time are created by the nodes' maintenance (pgqueue.history.partition-interval, one node
-- at a time); the default partition catches any row that finds none, so a finishing job never fails on a
-- missing partition.
--
-- The existing table is not copied: it becomes the first partition, holding everything that finishes before
-- the start of the next UTC day. Attaching it reads it once to prove that bound (about 0.6 s per 5 million
-- rows, measured), under the lock this migration holds anyway; its indexes are reused as they are (its
-- primary key answers look-ups by id; the index on (queue, state, id) becomes its part of the parent's).
-- Nodes of version 8 keep running on this schema: every statement they send to job_history still works.

ALTER TABLE job_history RENAME TO job_history_initial;
ALTER INDEX job_history_pkey RENAME TO job_history_initial_pkey;
ALTER INDEX job_history_queue_state_idx RENAME TO job_history_initial_queue_state_idx;
-- only the retention DELETE used it
DROP INDEX job_history_finished_idx;

CREATE TABLE job_history (LIKE job_history_initial INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (finished_at);

-- Pages of a queue's finished jobs by state, newest first: one index range per partition. Look-ups by id use
-- each partition's own index on id (the primary key of the first partition), created with the partition.
CREATE INDEX job_history_queue_state_idx ON job_history (queue, state, id);

DO $$
BEGIN
    EXECUTE format('ALTER TABLE job_history ATTACH PARTITION job_history_initial FOR VALUES FROM (MINVALUE) TO (%L)',
                   date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 day');
END
$$;

CREATE TABLE job_history_default PARTITION OF job_history DEFAULT;
CREATE INDEX job_history_default_id_idx ON job_history_default (id);

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 9';
