-- pgqueue's statements: vacuum
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

-- name: vacuum.oldest
/* pgqueue:vacuum.oldest */
SELECT kind, holder, pid, coalesce(since, now()) AS since, since IS NOT NULL AS start_known,
       age(horizon) AS xid_age, horizon::text AS horizon
FROM (
    SELECT 'TRANSACTION' AS kind,
           concat_ws(' ', nullif(application_name, ''), usename, state) AS holder, pid, xact_start AS since,
           CASE WHEN backend_xid IS NOT NULL AND (backend_xmin IS NULL OR age(backend_xid) > age(backend_xmin))
                THEN backend_xid ELSE backend_xmin END AS horizon
    FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid()
      AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
    UNION ALL
    SELECT 'PREPARED_TRANSACTION', gid, NULL, prepared, transaction
    FROM pg_prepared_xacts WHERE database = current_database()
    UNION ALL
    SELECT 'REPLICATION_SLOT', slot_name, active_pid, NULL, xmin
    FROM pg_replication_slots WHERE xmin IS NOT NULL
) AS holds
ORDER BY age(horizon) DESC
LIMIT 1;
