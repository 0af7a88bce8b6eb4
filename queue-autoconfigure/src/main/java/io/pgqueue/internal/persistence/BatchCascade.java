package io.pgqueue.internal.persistence;

import java.util.List;


/**
 * The {@link Transition.Cascade#BATCH} cascade, generated once and appended beside the workflow cascade to every
 * statement that can add, finish, bury, cancel or retry a batch's member: in the same statement as the member's
 * own change, the batch's counts get their deltas (an aggregate like the queue counters), and the member's shard
 * of the batch's exact counts ({@code batch_slot}, sixteen rows per batch chosen by the member's id) is updated.
 * A shard that reaches zero, or leaves it, updates the batch row; a callback whose event this decides is fired:
 * its row goes from pending to fired and its job is inserted ({@link Transition#ENQUEUE}), in the same
 * transaction. Exactly once, whatever the concurrency: shards are locked in order, a statement that waited for a
 * shard sees its newest version (PostgreSQL re-reads a row it waited for), the batch row serialises the shards'
 * crossings, and a callback row can only leave pending once. Every CTE runs on the statement's changed rows that
 * have a batch: for other jobs it reads an empty set.
 *
 * <p>Before the seal, shards are counted but decide nothing (the seal decides what already happened); members are
 * added under a {@code FOR KEY SHARE} lock of the batch row, which the seal's {@code FOR UPDATE} waits for, so no
 * member is added after it. The statement's final select must carry {@link #WOKEN}: the queues of the callbacks it
 * made ready, which {@code Wakeups} wakes once it committed.
 */
final class BatchCascade {

    /** The column a statement's final select must carry: the queues of the callbacks it made ready. */
    static final String WOKEN = ", ARRAY(SELECT queue FROM b_woken) AS b_woken";

    /** Shards per batch: a member's is its id modulo this. */
    static final int SLOTS = 16;

    /** The batch state its shard counts mean, given the counts of shards with unfinished and uncompleted members. */
    private static final String STATE = """
            CASE WHEN b.state = 'cancelled' THEN 'cancelled' WHEN %1$s > 0 THEN 'running'
                 WHEN %2$s = 0 THEN 'succeeded' ELSE 'failed' END""";

    private final Counters counters;

    BatchCascade(Counters counters) {
        this.counters = counters;
    }

    /**
     * The cascade of a transition's statement, whose CTE {@code changed} returns {@code id}, {@code batch_id} and,
     * where the transition leaves or reaches several states, {@code from_state} or {@code state}. Rows that leave
     * without a finished state (purged, expired) change nothing: a dead member stays counted as dead.
     */
    Steps steps(Transition transition, String changed) {
        String from = (transition.from().size() == 1) ? Transition.literal(transition.from().iterator().next())
                : "from_state";
        String to = transition.to().isEmpty() ? from
                : (transition.to().size() == 1) ? Transition.literal(transition.to().iterator().next()) : "state";
        return steps(changed, from, to);
    }

    /** As {@link #steps(Transition, String)}, with the old and new state of each row given as SQL expressions. */
    Steps steps(String changed, String from, String to) {
        return moved(changed, standing(from), standing(to)).then(CHANGES).then(SHARDS).then(COUNTED).then(decided());
    }

    /**
     * The cascade of members that completed — the LEASE acknowledgement's variant (whose cancel-requested jobs are
     * left to {@link Transition#CANCEL_RUNNING}), or a TRANSACTIONAL handler's success at the end of its
     * transaction: every row of {@code changed} that has a batch went from active to completed, so the changes are
     * plain counts (this is the hot path: an acknowledgement of a thousand members pays a few hundred
     * microseconds for it).
     */
    Steps completed(String changed) {
        return Steps.step("b_changes", """
                SELECT batch_id, (id %% %2$d)::smallint AS slot, -count(*) AS unfinished, -count(*) AS uncompleted,
                       0 AS deaths, 0 AS failures
                FROM %1$s WHERE batch_id IS NOT NULL GROUP BY 1, 2""".formatted(changed, SLOTS))
            .then(SHARDS)
            .then(Counters.Aggregate.BATCH.delta("b_counted",
                    new Counters.Move("SELECT batch_id FROM " + changed + " WHERE batch_id IS NOT NULL", "active",
                            "completed")))
            .then(decided());
    }

    /**
     * The cascade of members inserted into an open batch (locked {@code FOR KEY SHARE} by the statement): shards
     * and counts only, since nothing is decided before the seal.
     */
    Steps added(String inserted) {
        return moved(inserted, "'none'", "'active'").then(CHANGES).then(SHARDS).then(COUNTED);
    }

    /**
     * The seal of the batches locked in step {@code b_target} (id): their shards are sealed, the batch rows take
     * the counts of shards with unfinished and uncompleted members (a cancelled batch stays cancelled), and what the
     * members did before the seal fires its callbacks now.
     */
    Steps sealed() {
        return Steps.step("b_locked", """
                SELECT s.batch_id, s.slot FROM {schema}.batch_slot s
                WHERE s.batch_id = ANY(ARRAY(SELECT id FROM b_target)) ORDER BY s.batch_id, s.slot FOR UPDATE""")
            .then("b_sealed", """
                UPDATE {schema}.batch_slot s SET sealed = true
                WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked))
                RETURNING s.batch_id, s.unfinished, s.uncompleted, s.deaths, s.failures""")
            .then("b_crossed", """
                SELECT batch_id, count(*) FILTER (WHERE unfinished > 0) AS unfinished_slots,
                       count(*) FILTER (WHERE uncompleted > 0) AS uncompleted_slots,
                       sum(deaths) AS deaths, sum(failures) AS failures
                FROM b_sealed GROUP BY batch_id""")
            .then("b_batches", """
                UPDATE {schema}.batch b
                SET unfinished_slots = c.unfinished_slots, uncompleted_slots = c.uncompleted_slots,
                    state = %s, sealed_at = coalesce(b.sealed_at, now()),
                    finished_at = CASE WHEN c.unfinished_slots = 0 THEN now() END
                FROM b_crossed c
                WHERE b.id = c.batch_id
                RETURNING b.id, b.unfinished_slots, b.uncompleted_slots, b.state"""
                .formatted(STATE.formatted("c.unfinished_slots", "c.uncompleted_slots")))
            .then(fired());
    }

    private static Steps moved(String changed, String was, String nowIs) {
        return Steps.step("b_moved", """
                SELECT batch_id, (id %% %4$d)::smallint AS slot, %1$s AS was, %2$s AS now_is
                FROM %3$s WHERE batch_id IS NOT NULL""".formatted(was, nowIs, changed, SLOTS));
    }

    /** The changes per shard of {@code b_moved}'s rows (batch, shard, standing before and after). */
    private static final Steps CHANGES = Steps.step("b_changes", """
            SELECT batch_id, slot,
                   sum((now_is = 'active')::int - (was = 'active')::int) AS unfinished,
                   sum((now_is <> 'completed')::int - (was NOT IN ('completed', 'none'))::int) AS uncompleted,
                   sum((now_is = 'dead')::int) AS deaths,
                   sum((now_is IN ('dead', 'cancelled') AND was NOT IN ('dead', 'cancelled'))::int) AS failures
            FROM b_moved WHERE was <> now_is GROUP BY batch_id, slot""");

    /** The per-batch count deltas of {@code b_moved}'s rows. */
    private static final Steps COUNTED = Counters.Aggregate.BATCH.delta("b_counted",
            "SELECT batch_id, was, now_is FROM b_moved WHERE was <> now_is");

    /** The updates of the shards {@code b_changes} names, locked in order. */
    private static final Steps SHARDS = Steps.step("b_locked", """
            SELECT s.batch_id, s.slot FROM {schema}.batch_slot s
            WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_changes))
              AND (s.batch_id, s.slot) IN (SELECT batch_id, slot FROM b_changes)
            ORDER BY s.batch_id, s.slot FOR UPDATE""")
        .then("b_slots", """
            UPDATE {schema}.batch_slot s
            SET unfinished = s.unfinished + c.unfinished, uncompleted = s.uncompleted + c.uncompleted,
                deaths = s.deaths + c.deaths, failures = s.failures + c.failures
            FROM b_changes c
            WHERE s.batch_id = ANY(ARRAY(SELECT batch_id FROM b_locked)) AND s.batch_id = c.batch_id
              AND s.slot = c.slot
            RETURNING s.batch_id, s.sealed, s.unfinished, s.uncompleted, c.unfinished AS d_unfinished,
                      c.uncompleted AS d_uncompleted, c.deaths AS d_deaths, c.failures AS d_failures""");

    /** What sealed shards decide: the batch rows of shards that reached zero or left it, then the callbacks. */
    private Steps decided() {
        return Steps.step("b_crossed", """
                SELECT batch_id,
                       sum((unfinished > 0)::int - (unfinished - d_unfinished > 0)::int) AS unfinished_slots,
                       sum((uncompleted > 0)::int - (uncompleted - d_uncompleted > 0)::int) AS uncompleted_slots,
                       sum(d_deaths) AS deaths, sum(d_failures) AS failures
                FROM b_slots WHERE sealed GROUP BY batch_id""")
            .then("b_batch_locked", """
                SELECT b.id FROM {schema}.batch b
                WHERE b.id = ANY(ARRAY(SELECT batch_id FROM b_crossed
                                       WHERE unfinished_slots <> 0 OR uncompleted_slots <> 0))
                ORDER BY b.id FOR NO KEY UPDATE""")
            .then("b_batches", """
                UPDATE {schema}.batch b
                SET unfinished_slots = b.unfinished_slots + c.unfinished_slots,
                    uncompleted_slots = b.uncompleted_slots + c.uncompleted_slots,
                    state = %s,
                    finished_at = CASE WHEN b.unfinished_slots + c.unfinished_slots = 0
                                       THEN coalesce(b.finished_at, now()) END
                FROM b_crossed c
                WHERE b.id = ANY(ARRAY(SELECT id FROM b_batch_locked)) AND b.id = c.batch_id
                RETURNING b.id, b.unfinished_slots, b.uncompleted_slots, b.state""".formatted(STATE.formatted(
                "b.unfinished_slots + c.unfinished_slots", "b.uncompleted_slots + c.uncompleted_slots")))
            .then(fired());
    }

    /**
     * The events decided by {@code b_batches} (id and its new shard counts) and {@code b_crossed} (deaths and
     * failures in sealed shards), the callbacks they fire (pending ones only, locked in order), the callbacks'
     * jobs with their counter deltas, and the queues they made ready ({@code b_woken}).
     */
    private Steps fired() {
        return Steps.step("b_events", """
                SELECT id AS batch_id, 'success' AS event FROM b_batches WHERE uncompleted_slots = 0
                UNION ALL SELECT id, 'complete' FROM b_batches WHERE unfinished_slots = 0
                UNION ALL SELECT batch_id, 'first_death' FROM b_crossed WHERE deaths > 0
                UNION ALL SELECT batch_id, 'cannot_succeed' FROM b_crossed WHERE failures > 0""")
            .then("b_due", """
                SELECT k.batch_id, k.event FROM {schema}.batch_callback k
                WHERE k.batch_id = ANY(ARRAY(SELECT batch_id FROM b_events))
                  AND (k.batch_id, k.event) IN (SELECT batch_id, event FROM b_events) AND k.state = 'pending'
                ORDER BY k.batch_id, k.event FOR UPDATE""")
            .then("b_fired", """
                UPDATE {schema}.batch_callback k
                SET state = 'fired', fired_at = now(), job_id = nextval(pg_get_serial_sequence('{schema}.job', 'id'))
                FROM b_due d
                WHERE k.batch_id = ANY(ARRAY(SELECT batch_id FROM b_due)) AND k.batch_id = d.batch_id
                  AND k.event = d.event AND k.state = 'pending'
                RETURNING k.batch_id, k.event, k.queue, k.priority, k.delay_ms, k.max_attempts, k.group_key,
                          k.timeout_ms, k.headers, k.job_id""")
            .then("b_enqueued", """
                %s
                INSERT INTO {schema}.job (id, queue, state, priority, run_at, payload, payload_type, headers,
                                          max_attempts, group_key, timeout_ms)
                OVERRIDING SYSTEM VALUE
                SELECT f.job_id, f.queue, CASE WHEN f.delay_ms > 0 THEN 'scheduled' ELSE 'ready' END, f.priority,
                       now() + f.delay_ms * interval '1 millisecond',
                       jsonb_build_object('batchId', b.id, 'batchName', b.name, 'event', upper(f.event),
                                          'properties', b.properties),
                       '%s', f.headers, f.max_attempts, f.group_key, f.timeout_ms
                FROM b_fired f JOIN {schema}.batch b ON b.id = f.batch_id
                RETURNING id, queue, state""".formatted(Transition.ENQUEUE.tag(), EVENT_TYPE))
            .then(counters.delta(Transition.ENQUEUE, "b_enqueued", Counters.Rows.MANY))
            .then("b_woken", "SELECT DISTINCT queue FROM b_enqueued WHERE state = 'ready'");
    }

    /** The payload type recorded on callback jobs. */
    static final String EVENT_TYPE = "io.pgqueue.batch.BatchEvent";

    /** A state's standing in its batch's counts: waiting, scheduled, ready and running are all 'active'. */
    private static String standing(String state) {
        if (state.startsWith("'")) {
            // a state the transition names: its standing is known here, not left to the server to compare constants
            return ACTIVE.contains(state) ? "'active'" : state;
        }
        return "CASE WHEN " + state + " IN (" + String.join(", ", ACTIVE) + ") THEN 'active' ELSE " + state + " END";
    }

    /** The states counted as 'active' in a batch, as SQL literals. */
    private static final java.util.List<String> ACTIVE = java.util.List.of("'waiting'", "'scheduled'", "'ready'",
            "'running'");

}
