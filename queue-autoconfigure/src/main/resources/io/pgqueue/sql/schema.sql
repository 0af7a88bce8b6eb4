-- pgqueue's statements: schema
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

-- name: schema.missing-tables
/* pgqueue:schema.missing-tables */
SELECT t FROM unnest(:tables::text[]) AS t
WHERE t NOT IN (SELECT table_name FROM information_schema.tables WHERE table_schema = :schema)
ORDER BY array_position(:tables::text[], t);

-- name: schema.history-table-exists
/* pgqueue:schema.history-table-exists */
SELECT count(*) FROM (SELECT to_regclass(:table) AS t) AS r WHERE t IS NOT NULL;

-- name: schema.migrated-version
/* pgqueue:schema.migrated-version */
SELECT version FROM "pgqueue"."pgqueue_schema_history" WHERE success AND version IS NOT NULL ORDER BY installed_rank DESC LIMIT 1;

-- name: schema.version-function-exists
/* pgqueue:schema.version-function-exists */
SELECT count(*) FROM (SELECT to_regprocedure(:function) AS f) AS r WHERE f IS NOT NULL;

-- name: schema.stated-version
/* pgqueue:schema.stated-version */
SELECT "pgqueue".schema_version();

-- name: schema.compatible-from
/* pgqueue:schema.compatible-from */
SELECT "pgqueue".schema_compatible_from();

-- name: schema.identity-bounds
/* pgqueue:schema.identity-bounds */
SELECT s.seqmin, s.seqmax FROM pg_sequence AS s
WHERE s.seqrelid = pg_get_serial_sequence(:table, 'id')::regclass;

-- name: schema.id-block-bounds
/* pgqueue:schema.id-block-bounds */
SELECT (EXISTS (SELECT 1 FROM "pgqueue".job WHERE id < 1000000000001)
        OR EXISTS (SELECT 1 FROM "pgqueue".job WHERE id > 2000000000000))::int,
       coalesce((SELECT max(id) FROM "pgqueue".job WHERE id BETWEEN 1000000000001 AND 2000000000000), 0);

-- name: schema.id-block-restart
/* pgqueue:schema.id-block-restart */
ALTER TABLE "pgqueue".job ALTER COLUMN id SET MINVALUE 1000000000001 SET MAXVALUE 2000000000000 SET START WITH 1000000000001 RESTART WITH 1000000000001;
