-- pgqueue's SQL API (pgqueue.send() today): the contract producers in other languages write jobs by, stated by
-- api_version() as 'major.minor' (docs/other-languages.md). A minor version may add functions, and parameters
-- at the end of a function's list with a default that keeps the former behaviour (the migration then gives the
-- EXECUTE grants on the former function to the new one, as V12 did); it never removes or renames a parameter,
-- changes what a parameter or a result means, or makes a call that worked fail. Anything else is a new major
-- version. No table is touched.
CREATE FUNCTION api_version() RETURNS text
    LANGUAGE sql STABLE
AS $$SELECT '1.0'$$;

COMMENT ON FUNCTION api_version() IS
    'The version of pgqueue''s SQL API (major.minor): a minor version only adds; see docs/other-languages.md';

COMMENT ON FUNCTION send(text, jsonb, interval, timestamptz, integer, text, text, integer, jsonb, interval, text) IS
    'pgqueue SQL API 1.0: enqueues one job and returns its id (NULL when the dedup key is live); call with named '
    'arguments; see docs/other-languages.md';

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 13';
