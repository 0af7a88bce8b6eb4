-- pgqueue schema, version 2.

-- Scheduled jobs by due time across queues: promoting due jobs (per queue in the claim, for all queues in
-- maintenance) reads only the due range, never the jobs scheduled further ahead.
DROP INDEX job_scheduled_idx;
CREATE INDEX job_due_idx ON job (run_at) WHERE state = 'scheduled';

-- Run-at of the oldest ready job of a queue, read from the claim index with one probe per distinct
-- priority (a loose index scan) instead of scanning every ready job.
CREATE FUNCTION oldest_ready_run_at(p_queue text) RETURNS timestamptz
    LANGUAGE plpgsql STABLE
    SET search_path FROM CURRENT
AS $$
DECLARE
    current_priority smallint;
    candidate timestamptz;
    oldest timestamptz;
BEGIN
    SELECT priority INTO current_priority FROM job
    WHERE queue = p_queue AND state = 'ready' ORDER BY priority DESC LIMIT 1;
    WHILE current_priority IS NOT NULL LOOP
        SELECT run_at INTO candidate FROM job
        WHERE queue = p_queue AND state = 'ready' AND priority = current_priority ORDER BY run_at LIMIT 1;
        IF oldest IS NULL OR candidate < oldest THEN
            oldest := candidate;
        END IF;
        SELECT priority INTO current_priority FROM job
        WHERE queue = p_queue AND state = 'ready' AND priority < current_priority ORDER BY priority DESC LIMIT 1;
    END LOOP;
    RETURN oldest;
END
$$;
