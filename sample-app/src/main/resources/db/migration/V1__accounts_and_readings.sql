CREATE TABLE account (
    id          bigint        PRIMARY KEY,
    email       text,
    balance     numeric(12,2) NOT NULL DEFAULT 0,
    kwh_total   numeric(12,3) NOT NULL DEFAULT 0
);

CREATE TABLE meter_reading (
    id          bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id  bigint        NOT NULL REFERENCES account (id),
    kwh         numeric(12,3) NOT NULL,
    amount      numeric(12,2) NOT NULL,
    job_id      bigint        NOT NULL UNIQUE,
    recorded_at timestamptz   NOT NULL DEFAULT now()
);

-- accounts 1 to 100 have an email address; 13 has none, so its bills fail and end up dead
INSERT INTO account (id, email)
SELECT n, CASE WHEN n = 13 THEN NULL ELSE 'customer' || n || '@example.com' END FROM generate_series(1, 100) AS n;
