-- pgqueue schema, version 17: the TRANSACTIONAL claims of a fair queue no longer wait for each other's commits on
-- their keys' rows. Such a claim moves its keys' passes at the end of the handlers' transaction, and until now
-- it locked each key's row to do so and held it to the commit: every transaction that took jobs of the same keys
-- (a claim of ten jobs over ten keys takes one of each) queued behind the previous one's WAL flush. It now moves
-- the passes of the keys whose rows it can lock at once (FOR NO KEY UPDATE SKIP LOCKED) and leaves the charge of
-- the others here instead, as a row of its own, and commits without waiting; whoever locks the key next (the
-- next charge of its jobs, or a sweep) folds the committed rows into its pass. A key's pass, as the claims read
-- it, is its row's pass plus its rows here: a charge counts exactly once, and only when its jobs' transaction
-- commits. Only a new table; nothing is rewritten.

CREATE TABLE fair_charge (
    queue  text   NOT NULL,
    key    text   NOT NULL,
    amount float8 NOT NULL CHECK (amount >= 0)
) WITH (
    -- every row is inserted and soon deleted: vacuum and analyse after absolute numbers of rows, as the job table
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.0,
    autovacuum_vacuum_insert_threshold = 1000,
    autovacuum_analyze_scale_factor = 0.0,
    autovacuum_analyze_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0
);

-- A key's charges, summed by the claims that read its pass and folded by whoever locks its row.
CREATE INDEX fair_charge_key_idx ON fair_charge (queue, key);

CREATE OR REPLACE FUNCTION schema_version() RETURNS integer
    LANGUAGE sql IMMUTABLE
AS 'SELECT 17';
