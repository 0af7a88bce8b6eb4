CREATE TABLE usage_bucket (
    id          bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    readings    integer       NOT NULL,
    kwh         numeric(14,3) NOT NULL,
    written_at  timestamptz   NOT NULL DEFAULT now()
);
