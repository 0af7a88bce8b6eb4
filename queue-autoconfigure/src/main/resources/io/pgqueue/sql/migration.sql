-- pgqueue's statements: migration
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

-- name: migration.lock
/* pgqueue:migration.lock */
SELECT pg_advisory_xact_lock(hashtextextended(:key, 0));

-- name: migration.session-settings
/* pgqueue:migration.session-settings */
SELECT name, setting FROM pg_settings WHERE source = 'session'
UNION ALL SELECT 'role', current_setting('role');

-- name: migration.set
/* pgqueue:migration.set */
SELECT set_config(:name, :value, false);

-- name: migration.local-lock-timeout
/* pgqueue:migration.local-lock-timeout */
SELECT set_config('lock_timeout', :value, true);
