-- pgqueue's statements: fairness
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

-- name: fairness.charge
/* pgqueue:fairness.charge */
WITH fair_settings AS (
    SELECT * FROM unnest(:fair_keys::text[], :fair_weights::float8[], :fair_caps::int[]) AS c(key, weight, cap)
), charges AS (
    SELECT * FROM unnest(:keys::text[], :counts::int[]) AS c(key, n)
), fair_alone AS (
    SELECT count(*) = 1 AS alone FROM (
        SELECT 1 FROM "pgqueue".fair_key a
        WHERE a.queue = :queue AND a.active AND NOT a.drained AND NOT a.paused LIMIT 2) AS active_keys
), locked AS (
    SELECT k.key, k.pass, coalesce(k.weight, (SELECT c.weight FROM fair_settings c WHERE c.key = k.key), :fair_default_weight::float8) AS weight FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.key = ANY(:keys::text[])
      AND (k.key = ANY(:emptied::text[]) OR NOT (SELECT alone FROM fair_alone))
    ORDER BY k.key FOR NO KEY UPDATE OF k SKIP LOCKED
), left_charges AS (
    INSERT INTO "pgqueue".fair_charge (queue, key, amount)
    SELECT :queue, k.key, c.n / coalesce(k.weight, (SELECT c.weight FROM fair_settings c WHERE c.key = k.key), :fair_default_weight::float8)
    FROM "pgqueue".fair_key k JOIN charges c ON c.key = k.key
    WHERE k.queue = :queue AND c.n > 0 AND NOT (SELECT alone FROM fair_alone)
      AND k.key NOT IN (SELECT key FROM locked)
), folded AS (
    DELETE FROM "pgqueue".fair_charge f WHERE f.queue = :queue AND f.key = ANY(ARRAY(SELECT key FROM locked))
    RETURNING f.key, f.amount
)
UPDATE "pgqueue".fair_key k
SET pass = CASE WHEN c.n > 0 THEN l.pass + f.amount + c.n / l.weight
                ELSE greatest(l.pass + f.amount, (SELECT max(b.pass) FROM "pgqueue".fair_key b
                                                  WHERE b.queue = :queue AND b.active AND NOT b.drained AND NOT b.paused)) END,
    drained = k.drained OR CASE WHEN k.key = ANY(:emptied::text[]) THEN NOT coalesce((SELECT true FROM "pgqueue".job j WHERE j.queue = :queue AND j.fairness_key = k.key AND j.state >= 'ready' AND j.state <= 'ready'
          ORDER BY j.priority DESC, j.run_at, j.id LIMIT 1), false) ELSE false END,
    updated_at = now()
FROM locked l JOIN charges c ON c.key = l.key
     CROSS JOIN LATERAL (SELECT coalesce(sum(d.amount), 0) AS amount FROM folded d WHERE d.key = l.key) AS f
WHERE k.queue = :queue AND k.key = l.key;

-- name: fairness.charge-lock
/* pgqueue:fairness.charge-lock */
WITH locked AS (
    SELECT k.key FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.key = ANY(:keys::text[])
    ORDER BY k.key FOR NO KEY UPDATE OF k
), fair_drainable AS (
    SELECT k.key FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.key = ANY(ARRAY(SELECT key FROM locked WHERE key = ANY(:emptied::text[])))
    FOR UPDATE OF k SKIP LOCKED
)
SELECT key FROM fair_drainable ORDER BY key;

-- name: fairness.recheck-drained
/* pgqueue:fairness.recheck-drained */
UPDATE "pgqueue".fair_key k SET drained = false, updated_at = now()
WHERE k.queue = :queue AND k.key = ANY(:keys::text[]) AND k.drained AND coalesce((SELECT true FROM "pgqueue".job j WHERE j.queue = k.queue AND j.fairness_key = k.key AND j.state >= 'ready' AND j.state <= 'ready'
          ORDER BY j.priority DESC, j.run_at, j.id LIMIT 1), false);

-- name: fairness.sweep-lock
/* pgqueue:fairness.sweep-lock */
UPDATE "pgqueue".fair_key k SET sweeping = true
WHERE k.queue = :queue AND k.key = ANY(ARRAY(
    SELECT d.key FROM "pgqueue".fair_key d WHERE d.queue = :queue AND d.drained
    FOR UPDATE OF d SKIP LOCKED));

-- name: fairness.sweep-settle
/* pgqueue:fairness.sweep-settle */
WITH running_keys AS (
    SELECT DISTINCT j.fairness_key AS key FROM "pgqueue".job j
    WHERE j.queue = :queue AND j.state = 'running' AND j.fairness_key IS NOT NULL
)
UPDATE "pgqueue".fair_key k
SET sweeping = false, drained = false, updated_at = now(),
    active = coalesce((SELECT true FROM "pgqueue".job j WHERE j.queue = k.queue AND j.fairness_key = k.key AND j.state >= 'ready' AND j.state <= 'ready'
          ORDER BY j.priority DESC, j.run_at, j.id LIMIT 1), false) OR k.key IN (SELECT key FROM running_keys)
WHERE k.queue = :queue AND k.sweeping;

-- name: fairness.fold-charges
/* pgqueue:fairness.fold-charges */
WITH locked AS (
    SELECT k.key FROM "pgqueue".fair_key k
    WHERE k.queue = :queue AND k.key IN (SELECT c.key FROM "pgqueue".fair_charge c WHERE c.queue = :queue)
    ORDER BY k.key FOR NO KEY UPDATE OF k SKIP LOCKED
), folded AS (
    DELETE FROM "pgqueue".fair_charge f WHERE f.queue = :queue AND f.key = ANY(ARRAY(SELECT key FROM locked))
    RETURNING f.key, f.amount
)
UPDATE "pgqueue".fair_key k SET pass = k.pass + f.amount, updated_at = now()
FROM (SELECT key, sum(amount) AS amount FROM folded GROUP BY key) AS f
WHERE k.queue = :queue AND k.key = f.key;

-- name: fairness.activate-ready-keys
/* pgqueue:fairness.activate-ready-keys */
WITH RECURSIVE ready_keys (key) AS (
    (SELECT fairness_key FROM "pgqueue".job
     WHERE queue = :queue AND state = 'ready' AND fairness_key IS NOT NULL
     ORDER BY fairness_key LIMIT 1)
    UNION ALL
    SELECT (SELECT j.fairness_key FROM "pgqueue".job j
            WHERE j.queue = :queue AND j.state = 'ready' AND j.fairness_key IS NOT NULL
              AND j.fairness_key > r.key
            ORDER BY j.fairness_key LIMIT 1)
    FROM ready_keys r WHERE r.key IS NOT NULL
), activated AS (
    INSERT INTO "pgqueue".fair_key AS k (queue, key, pass)
    SELECT :queue, key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = :queue AND a.active AND NOT a.drained AND NOT a.paused), 0) FROM ready_keys WHERE key IS NOT NULL
    ON CONFLICT (queue, key) DO UPDATE
        SET active = true, drained = false, pass = greatest(k.pass, excluded.pass), updated_at = now()
        WHERE NOT k.active
    RETURNING 1
)
SELECT count(*) FROM activated;

-- name: fairness.adopt-keyless-jobs
/* pgqueue:fairness.adopt-keyless-jobs */
WITH adopted AS (
    UPDATE "pgqueue".job SET fairness_key = :key
    WHERE id = ANY(ARRAY(SELECT id FROM "pgqueue".job
                         WHERE queue = :queue AND state = 'ready' AND fairness_key IS NULL
                         LIMIT 1000 FOR UPDATE SKIP LOCKED))
    RETURNING 1
)
SELECT count(*) FROM adopted;

-- name: fairness.set-weight
/* pgqueue:fairness.set-weight */
INSERT INTO "pgqueue".fair_key AS k (queue, key, pass, active, weight)
VALUES (:queue, :key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a
                                WHERE a.queue = :queue AND a.active AND NOT a.drained AND NOT a.paused), 0), false, :weight::float8)
ON CONFLICT (queue, key) DO UPDATE SET weight = excluded.weight, updated_at = now();

-- name: fairness.set-paused
/* pgqueue:fairness.set-paused */
INSERT INTO "pgqueue".fair_key AS k (queue, key, pass, active, paused)
VALUES (:queue, :key, coalesce((SELECT min(a.pass) FROM "pgqueue".fair_key a
                                WHERE a.queue = :queue AND a.active AND NOT a.drained AND NOT a.paused), 0), false, :paused::boolean)
ON CONFLICT (queue, key) DO UPDATE SET paused = excluded.paused,
    active = k.active OR NOT excluded.paused,
    pass = CASE WHEN excluded.paused THEN k.pass ELSE greatest(k.pass, coalesce(
        (SELECT min(a.pass) FROM "pgqueue".fair_key a WHERE a.queue = k.queue AND a.active AND NOT a.drained AND NOT a.paused),
        k.pass)) END, updated_at = now();

-- name: fairness.keys
/* pgqueue:fairness.keys */
SELECT k.key, k.weight, k.paused, k.active, k.pass + coalesce((SELECT sum(f.amount) FROM "pgqueue".fair_charge f WHERE f.queue = k.queue AND f.key = k.key), 0) AS pass, '~' || left(md5((SELECT s.system_identifier::text FROM pg_control_system() AS s) || chr(31) || current_database() || chr(31) || k.queue || chr(31) || k.key), 16) AS handle,
       (SELECT count(*) FROM (SELECT 1 FROM "pgqueue".job j
                              WHERE j.queue = k.queue AND j.fairness_key = k.key AND j.state = 'ready'
                              ORDER BY j.priority DESC, j.run_at, j.id LIMIT :ready_limit) AS r) AS ready,
       (SELECT count(*) FROM "pgqueue".job j
        WHERE j.queue = k.queue AND j.state = 'running' AND j.fairness_key = k.key) AS running,
       (SELECT j.run_at FROM "pgqueue".job j
        WHERE j.queue = k.queue AND j.fairness_key = k.key AND j.state = 'ready'
        ORDER BY j.priority DESC, j.run_at, j.id LIMIT 1) AS next_ready_since
FROM "pgqueue".fair_key k
WHERE k.queue = :queue
ORDER BY k.active DESC, k.key LIMIT :limit;

-- name: fairness.key-of-handle
/* pgqueue:fairness.key-of-handle */
SELECT k.key FROM "pgqueue".fair_key k WHERE k.queue = :queue AND '~' || left(md5((SELECT s.system_identifier::text FROM pg_control_system() AS s) || chr(31) || current_database() || chr(31) || k.queue || chr(31) || k.key), 16) = :handle;

-- name: fairness.key-counts
/* pgqueue:fairness.key-counts */
SELECT queue, count(*) FILTER (WHERE active AND NOT paused), count(*) FILTER (WHERE paused),
       count(*) FILTER (WHERE NOT active AND NOT paused)
FROM "pgqueue".fair_key GROUP BY queue ORDER BY queue;
