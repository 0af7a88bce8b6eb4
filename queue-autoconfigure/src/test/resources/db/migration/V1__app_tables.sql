-- The coexistence test's own application migration, in the application's schema.
CREATE TABLE app_account (id bigint PRIMARY KEY, name text NOT NULL);
