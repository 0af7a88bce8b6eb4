-- pgqueue's statements: history
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

-- name: history.record-outputs
/* pgqueue:history.record-outputs */
RELEASE SAVEPOINT pgqueue_claim;
/* pgqueue:history.record-outputs #2 */
UPDATE "pgqueue".job_history h SET output = o.output::jsonb
FROM unnest(:ids::bigint[], :outputs::text[]) AS o(id, output)
WHERE h.id = o.id AND h.finished_at = now();

-- name: history.redate
/* pgqueue:history.redate */
UPDATE "pgqueue".job_history h SET finished_at = now() + o.after_us * interval '1 microsecond'
FROM unnest(:ids::bigint[], :after_us::bigint[]) AS o(id, after_us)
WHERE h.id = o.id AND h.finished_at = now();

-- name: history.expire
/* pgqueue:history.expire */
WITH expired AS (
    DELETE FROM "pgqueue".job_history_default WHERE id = ANY(ARRAY(
        SELECT id FROM "pgqueue".job_history_default
        WHERE finished_at < now() - :retention_ms * interval '1 millisecond'
        LIMIT :limit FOR UPDATE SKIP LOCKED))
    RETURNING id
)
SELECT count(*) FROM expired;

-- name: history.partitions
/* pgqueue:history.partitions */
SELECT name, CASE WHEN m[1] = 'MINVALUE' THEN NULL ELSE btrim(m[1], '''')::timestamptz END AS from_bound,
       btrim(m[2], '''')::timestamptz AS to_bound
FROM (SELECT c.relname AS name,
             regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \((.+)\) TO \((.+)\)') AS m
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass(:parent)) AS p
ORDER BY to_bound NULLS LAST, name;

-- name: history.now
/* pgqueue:history.now */
SELECT now();

-- name: history.one-node-at-a-time
/* pgqueue:history.one-node-at-a-time */
SELECT pg_try_advisory_xact_lock(hashtext(:lock));

-- name: history.lock-timeout
/* pgqueue:history.lock-timeout */
SELECT set_config('lock_timeout', :timeout, true);

-- name: history.held-by-long-transaction
/* pgqueue:history.held-by-long-transaction */
SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
               WHERE l.relation = to_regclass(:parent) AND l.granted AND l.pid <> pg_backend_pid()
                 AND a.xact_start < now() - interval '1 second');

-- name: history.analyze
/* pgqueue:history.analyze */
ANALYZE "pgqueue".job_history;

-- name: history.create-partition
/* pgqueue:history.create-partition */
CREATE TABLE "pgqueue".job_history_20261124 (LIKE "pgqueue".job_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
/* pgqueue:history.create-partition #2 */
CREATE INDEX job_history_20261124_id_idx ON "pgqueue".job_history_20261124 (id);
/* pgqueue:history.create-partition #3 */
ALTER TABLE "pgqueue".job_history ATTACH PARTITION "pgqueue".job_history_20261124 FOR VALUES FROM ('2026-11-24T00:00:00Z') TO ('2026-11-25T00:00:00Z');

-- name: history.drop-partition
/* pgqueue:history.drop-partition */
ALTER TABLE "pgqueue".job_history DETACH PARTITION "pgqueue".job_history_20261124;
/* pgqueue:history.drop-partition #2 */
DROP TABLE "pgqueue".job_history_20261124;
