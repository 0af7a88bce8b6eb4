-- pgqueue's statements: node
--
-- Rendered from the code that composes them, for reading and review: do not edit. A change of the
-- code that changes a statement fails StatementCatalogueTests until this file is regenerated
-- (./mvnw -pl queue-autoconfigure test -Dtest=StatementCatalogueTests -Dpgqueue.sql.write=true),
-- so that every change of SQL shows in a diff. Each statement starts with its name as a comment,
-- as server logs, pg_stat_activity and pg_stat_statements show it.
--
-- Rendered with the schema "pgqueue" and the default settings; the statements that another setting
-- changes are in that setting's folder. A claim is rendered with its limit as a parameter and at
-- a size of 10: a listener's claims of other sizes have their size written in the same way
-- (name:size). Statements whose text carries values computed at run time (DDL takes no
-- parameters) are shown with example values.

-- name: node.heartbeat
/* pgqueue:node.heartbeat */
WITH alive AS (
    INSERT INTO "pgqueue".node AS n (id, host, pid, containers, heartbeat_at)
    VALUES (:node, :host, :pid, coalesce(:containers::jsonb, '[]'::jsonb), clock_timestamp())
    ON CONFLICT (id) DO UPDATE SET heartbeat_at = clock_timestamp(),
        containers = CASE WHEN :containers::jsonb IS NULL THEN n.containers ELSE excluded.containers END
    RETURNING id
), renewed AS (
    UPDATE "pgqueue".job
    SET lease_until = greatest(lease_until, clock_timestamp() + :lease_ms * interval '1 millisecond')
    WHERE id = ANY(:ids::bigint[]) AND locked_by = (SELECT id FROM alive)
    RETURNING id, cancel_requested
)
SELECT id FROM renewed WHERE cancel_requested;

-- name: node.unregister
/* pgqueue:node.unregister */
DELETE FROM "pgqueue".node WHERE id = :node;

-- name: node.nodes
/* pgqueue:node.nodes */
SELECT id, host, pid, started_at, heartbeat_at, containers FROM "pgqueue".node ORDER BY started_at, id;
