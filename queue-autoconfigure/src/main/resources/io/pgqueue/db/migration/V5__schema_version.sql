-- pgqueue schema, version 5: the schema states its own version, so that a schema applied by hand (no Flyway
-- history) can be checked at startup with pgqueue.schema.migrate=false. Every later migration replaces this
-- function with its own number.
CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 5';
