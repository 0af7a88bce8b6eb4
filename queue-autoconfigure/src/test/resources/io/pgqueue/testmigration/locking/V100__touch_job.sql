-- A migration of a later pgqueue that alters the job table: it needs ACCESS EXCLUSIVE on it (MigrationLockTests).
ALTER TABLE job ADD COLUMN later_release_column integer;
