package io.pgqueue.internal.persistence;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The statements that insert jobs ({@link Transition#ENQUEUE}): one per row shape and what the insert carries
 * beside its rows (a NOTIFY, dedup windows, a batch, fairness keys), all made at startup; and the insert's CTEs,
 * which a recurring schedule's tick reuses.
 */
final class InsertStatements {

    /**
     * Dedup windows of the input rows that have one: a key is taken again only once its window expired and no
     * live job holds it (a send that the job's own dedup key turns away must not renew the window); the rows
     * whose key could not be taken are not inserted.
     */
    private static final Steps WINDOWED = Steps.step("windowed", """
            INSERT INTO {schema}.dedup_window AS w (queue, dedup_key, expires_at)
            SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
            FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM {schema}.job live
                              WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
            ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
            RETURNING queue, dedup_key""");

    private final Counters counters;

    private final BatchCascade batches;

    private final FairnessCascade fairness;

    /** Every insert statement, by what it inserts. */
    private final Map<Variant, Sql> inserts = new HashMap<>();

    final Sql debounced;

    InsertStatements(Schema schema, Counters counters, BatchCascade batches, FairnessCascade fairness) {
        this.counters = counters;
        this.batches = batches;
        this.fairness = fairness;
        for (RowShape shape : RowShape.values()) {
            for (boolean notify : new boolean[] { false, true }) {
                for (boolean windowed : new boolean[] { false, true }) {
                    for (boolean batched : new boolean[] { false, true }) {
                        for (boolean keyed : new boolean[] { false, true }) {
                            Variant variant = new Variant(shape, notify, windowed, batched, keyed);
                            inserts.put(variant, schema.sql(variant.name(), enqueueStatement(variant)));
                        }
                    }
                }
            }
        }
        this.debounced = schema.sql("enqueue.debounced", debounceStatement());
    }

    /**
     * What an insert statement carries: its rows' shape, a NOTIFY, dedup windows (some row has one), a batch
     * (the jobs are its members), fairness keys (some row has one).
     */
    record Variant(RowShape shape, boolean notifies, boolean windowed, boolean batched, boolean keyed) {

        static Variant of(List<NewJob> jobs, boolean notify, boolean batched) {
            boolean windowed = false;
            boolean keyed = false;
            // a loop, not two streams: this runs on every send
            for (NewJob job : jobs) {
                windowed |= job.dedupForMillis() != null;
                keyed |= job.fairnessKey() != null;
            }
            return new Variant(RowShape.of(jobs), notify, windowed, batched, keyed);
        }

        /** The statement's name in the catalogue. */
        String name() {
            return "enqueue." + (batched ? "to-batch:" : "") + shape.name().toLowerCase(java.util.Locale.ROOT)
                    + (notifies ? "+notify" : "") + (windowed ? "+window" : "") + (keyed ? "+keyed" : "");
        }
    }

    /** The statement that inserts these jobs. */
    Sql insert(Variant variant) {
        return inserts.get(variant);
    }

    /**
     * The insert of new jobs read from the step {@code input} (queue, payload, payload_type, headers, priority,
     * due, max_attempts, dedup_key, group_key, timeout_ms and, with dedup windows, dedup_for_ms) as steps
     * {@code inserted} (id, queue, state), its counter deltas and, with {@code notify}, {@code notified}: a
     * NOTIFY of the queue delivered at commit, which the final select must reference. The one way a job row
     * comes into being, for sends and recurring ticks alike (and, in the same words, pgqueue.send() in SQL); to
     * follow the steps that define {@code input}.
     */
    Steps inserted(Counters.Rows rows, boolean notify) {
        return inserted(rows, notify, false);
    }

    /** As {@link #inserted(Counters.Rows, boolean)}; with {@code windowed}, input rows may carry dedup windows. */
    Steps inserted(Counters.Rows rows, boolean notify, boolean windowed) {
        return inserted(rows, notify, windowed, false, false);
    }

    /**
     * As {@link #inserted(Counters.Rows, boolean, boolean)}; with {@code batched}, the jobs are members of the
     * batch {@code :batch_id}, which the caller locked open, and the statement carries the batch cascade; with
     * {@code keyed}, the input rows carry {@code fairness_key}, and the statement the fairness cascade.
     */
    private Steps inserted(Counters.Rows rows, boolean notify, boolean windowed, boolean batched, boolean keyed) {
        String columns = (batched ? ", batch_id" : "") + (keyed ? ", fairness_key" : "");
        return (windowed ? WINDOWED : Steps.NONE)
            .then("inserted", """
                %s
                INSERT INTO {schema}.job (queue, state, priority, run_at, payload, payload_type, headers,
                                          max_attempts, dedup_key, group_key, timeout_ms%s)
                SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
                       payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms%s
                FROM input i%s
                ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
                RETURNING id, queue, state%s""".formatted(Transition.ENQUEUE.tag(), columns,
                (batched ? ", :batch_id::bigint" : "") + (keyed ? ", fairness_key" : ""), windowed ? """

                WHERE i.dedup_for_ms IS NULL
                   OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)"""
                : "", columns))
            .then(counters.delta(Transition.ENQUEUE, "inserted", rows))
            .then(batched ? batches.added("inserted") : Steps.NONE)
            .then(keyed ? fairness.activate("inserted", "", false) : Steps.NONE)
            .then(notify ? Steps.step("notified",
                    "SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row")
                    : Steps.NONE);
    }

    /** The input step of a send: the job rows as parameters of the given shape. */
    private static Steps input(RowShape shape, boolean keyed) {
        return Steps.step("input", """
                SELECT :queue::text AS queue, i.*,
                       coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
                FROM %s AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                             group_key, timeout_ms, dedup_for_ms%s)""".formatted(shape.rows(keyed),
                keyed ? ", fairness_key" : ""));
    }

    private String enqueueStatement(Variant variant) {
        return input(variant.shape(), variant.keyed())
            .then(inserted(variant.shape().counted, variant.notifies(), variant.windowed(), variant.batched(),
                    variant.keyed()))
            .select(variant.notifies() ? "SELECT id FROM inserted LEFT JOIN notified ON true" : "SELECT id FROM inserted");
    }

    /**
     * A debounced send: inserts the job, waiting for its quiet window, or, while a job of the key still waits,
     * gives that one the new payload and options and pushes its run-at back. Only inserted rows are counted.
     */
    private String debounceStatement() {
        return input(RowShape.SINGLE, true)
            .then("upserted", """
                %s
                INSERT INTO {schema}.job AS j (queue, state, priority, run_at, payload, payload_type, headers,
                                               max_attempts, group_key, timeout_ms, debounce_key, fairness_key)
                SELECT queue, 'scheduled', priority, due, payload::jsonb, payload_type, headers::jsonb,
                       max_attempts, group_key, timeout_ms, :debounce_key, fairness_key
                FROM input
                ON CONFLICT (queue, debounce_key) WHERE state = 'scheduled' AND debounce_key IS NOT NULL
                DO UPDATE SET payload = excluded.payload, payload_type = excluded.payload_type,
                              headers = excluded.headers, priority = excluded.priority, run_at = excluded.run_at,
                              max_attempts = excluded.max_attempts, group_key = excluded.group_key,
                              timeout_ms = excluded.timeout_ms
                RETURNING id, queue, state, (xmax = 0) AS inserted""".formatted(Transition.ENQUEUE.tag()))
            .then("inserted", "SELECT id, queue, state FROM upserted WHERE inserted")
            .then(counters.delta(Transition.ENQUEUE, "inserted", Counters.Rows.ONE))
            .select("SELECT id, inserted FROM upserted");
    }

    /** How the rows of one insert travel as parameters. */
    enum RowShape {

        /** A single send: plain parameters, cheaper to bind than nine one-element arrays. */
        SINGLE("(VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, "
                + ":delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, "
                + ":dedup_for_ms::bigint%s))", ", :fairness_key::text", Counters.Rows.ONE),

        /**
         * A batch whose jobs differ only in payload (sendBatch with one SendOptions, the usual case): one array
         * of payloads, every other column a single parameter.
         */
        UNIFORM("(SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN "
                + "(VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, "
                + ":delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, "
                + ":dedup_for_ms::bigint%s)) AS o)", ", :fairness_key::text",
                Counters.Rows.MANY),

        /** Any batch: one array per column, expanded by unnest. */
        MIXED("unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], "
                + ":run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], "
                + ":group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]%s)", ", :fairness_key::text[]",
                Counters.Rows.MANY);

        /** The rows, with a place ({@code %s}) for a further column. */
        private final String rows;

        /** The fairness key's column, in the place of a keyed insert's rows. */
        private final String keyColumn;

        private final Counters.Rows counted;

        RowShape(String rows, String keyColumn, Counters.Rows counted) {
            this.rows = rows;
            this.keyColumn = keyColumn;
            this.counted = counted;
        }

        /** The rows, with the fairness key as a further column when {@code keyed}. */
        String rows(boolean keyed) {
            return rows.formatted(keyed ? keyColumn : "");
        }

        static RowShape of(List<NewJob> jobs) {
            if (jobs.size() == 1) {
                return SINGLE;
            }
            NewJob first = jobs.get(0);
            return jobs.stream().allMatch(first::sameOptionsAs) ? UNIFORM : MIXED;
        }

        void bind(Params params, List<NewJob> jobs) throws SQLException {
            if (this == MIXED) {
                params.array("payload", "text", column(jobs, NewJob::payloadJson))
                    .array("payload_type", "text", column(jobs, NewJob::payloadType))
                    .array("headers", "text", column(jobs, NewJob::headersJson))
                    .array("priority", "int2", column(jobs, NewJob::priority))
                    .array("run_at_ms", "int8", column(jobs, NewJob::runAtMillis))
                    .array("delay_ms", "int8", column(jobs, NewJob::delayMillis))
                    .array("max_attempts", "int4", column(jobs, NewJob::maxAttempts))
                    .array("dedup_key", "text", column(jobs, NewJob::dedupKey))
                    .array("group_key", "text", column(jobs, NewJob::groupKey))
                    .array("timeout_ms", "int8", column(jobs, NewJob::timeoutMillis))
                    .array("dedup_for_ms", "int8", column(jobs, NewJob::dedupForMillis));
                if (params.expects("fairness_key")) {
                    params.array("fairness_key", "text", column(jobs, NewJob::fairnessKey));
                }
                return;
            }
            NewJob job = jobs.get(0);
            if (this == SINGLE) {
                params.text("payload", job.payloadJson());
            }
            else {
                params.array("payload", "text", column(jobs, NewJob::payloadJson));
            }
            params.text("payload_type", job.payloadType())
                .text("headers", job.headersJson())
                .int2("priority", job.priority())
                .int8("run_at_ms", job.runAtMillis())
                .int8("delay_ms", job.delayMillis())
                .int4("max_attempts", job.maxAttempts())
                .text("dedup_key", job.dedupKey())
                .text("group_key", job.groupKey())
                .int8("timeout_ms", job.timeoutMillis())
                .int8("dedup_for_ms", job.dedupForMillis());
            if (params.expects("fairness_key")) {
                params.text("fairness_key", job.fairnessKey());
            }
        }

        private static @Nullable Object[] column(List<NewJob> jobs, Function<NewJob, @Nullable Object> column) {
            return Params.column(jobs, column);
        }
    }
}
