package io.pgqueue.internal.lifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.pgqueue.model.JobState;

/**
 * The counts behind the gauges, never computed with COUNT(*) on the hot path: every statement that carries
 * out a {@link Transition} appends one delta row per queue to {@code queue_counter_delta} (no index, no row
 * lock shared with other writers), a cluster-safe squeeze folds the deltas into {@code queue_counter}, and
 * readers add both. This class is the only place that knows the delta table: it generates each transition's
 * delta from the transition table, so a count can only be wrong if the table is.
 */
final class Counters {

    /** The counter tables: the folded counts, and the deltas not folded yet. */
    static final List<String> TABLES = List.of("queue_counter", "queue_counter_delta");

    /** Columns of both counter tables: one per job state, then the totals. */
    static final List<String> COLUMNS;

    static {
        List<String> columns = new ArrayList<>();
        JobState.live().forEach((state) -> columns.add(state.value()));
        for (Transition.Total total : Transition.Total.values()) {
            columns.add(total.column());
        }
        COLUMNS = List.copyOf(columns);
    }

    /** How many rows a statement's changed-rows CTE holds. */
    enum Rows {

        /** Any number: one delta row per queue through an aggregate. */
        MANY,

        /** At most one (a single send): its delta without an aggregate node, measurably cheaper. */
        ONE
    }

    private final boolean enabled;

    Counters(boolean enabled) {
        this.enabled = enabled;
    }

    boolean enabled() {
        return enabled;
    }

    /**
     * The CTE that appends the deltas of a transition, to follow the CTE {@code changed} in a WITH clause
     * (with a leading comma), or an empty string when counters are off. {@code changed} must return a
     * {@code queue} column and, when the transition can reach several states, the new {@code state}.
     */
    String deltaCte(Transition transition, String changed, Rows rows) {
        if (!enabled) {
            return "";
        }
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (JobState state : JobState.live()) {
            String into = into(transition, state, rows);
            String out = out(transition, state, rows);
            if (into != null || out != null) {
                columns.add(state.value());
                values.add((into != null && out != null) ? into + " - " + out : (into != null) ? into : "-" + out);
            }
        }
        for (Transition.Total total : transition.totals()) {
            String value = (total.onlyInto() == null) ? all(rows) : into(transition, total.onlyInto(), rows);
            if (value != null) {
                columns.add(total.column());
                values.add(value);
            }
        }
        String alias = "counted_" + transition.name().toLowerCase(java.util.Locale.ROOT);
        return ", " + alias + " AS (\n    INSERT INTO {schema}.queue_counter_delta (queue, " + String.join(", ", columns)
                + ")\n    SELECT queue, " + String.join(", ", values) + " FROM " + changed
                + ((rows == Rows.MANY) ? " GROUP BY queue" : "") + "\n)";
    }

    /** How many of the changed rows entered {@code state}, or null when the transition cannot reach it. */
    private static String into(Transition transition, JobState state, Rows rows) {
        return (transition.to().contains(state)) ? some(transition.to().size(), "state", state, rows) : null;
    }

    /** How many of the changed rows left {@code state}, or null when the transition cannot leave it. */
    private static String out(Transition transition, JobState state, Rows rows) {
        return (transition.from().contains(state)) ? some(transition.from().size(), "from_state", state, rows) : null;
    }

    /** All rows when {@code state} is the only choice, else those whose {@code column} names it. */
    private static String some(int choices, String column, JobState state, Rows rows) {
        if (choices == 1) {
            return all(rows);
        }
        return (rows == Rows.ONE) ? "(" + column + " = '" + state.value() + "')::int"
                : "count(*) FILTER (WHERE " + column + " = '" + state.value() + "')";
    }

    private static String all(Rows rows) {
        return (rows == Rows.ONE) ? "1" : "count(*)";
    }

    /** Every queue's counts: the folded counters plus the deltas not folded yet. */
    String countsQuery() {
        return "SELECT queue, " + sums(COLUMNS) + "\nFROM (SELECT queue, " + String.join(", ", COLUMNS)
                + " FROM {schema}.queue_counter\n      UNION ALL\n      SELECT queue, " + String.join(", ", COLUMNS)
                + " FROM {schema}.queue_counter_delta) AS counts\nGROUP BY queue ORDER BY queue";
    }

    /** The queues the counters know. */
    String queuesQuery() {
        return "SELECT queue FROM {schema}.queue_counter UNION SELECT queue FROM {schema}.queue_counter_delta";
    }

    /**
     * Folds every committed delta into the counters: one squeezer at a time across the cluster (advisory
     * lock), others skip. Writers never touch queue_counter, so they never wait for this.
     */
    String squeezeStatement() {
        StringJoiner increments = new StringJoiner(", ");
        COLUMNS.forEach((column) -> increments.add(column + " = c." + column + " + excluded." + column));
        return """
                WITH squeezer AS (
                    SELECT pg_try_advisory_xact_lock(hashtext(:lock)) AS granted
                ), moved AS (
                    DELETE FROM {schema}.queue_counter_delta WHERE (SELECT granted FROM squeezer)
                    RETURNING queue, %1$s
                ), summed AS (
                    SELECT queue, %2$s FROM moved GROUP BY queue
                ), folded AS (
                    INSERT INTO {schema}.queue_counter AS c (queue, %1$s)
                    SELECT queue, %1$s FROM summed
                    ON CONFLICT (queue) DO UPDATE SET %3$s, updated_at = now()
                    RETURNING queue
                )
                SELECT count(*) FROM moved
                """.formatted(String.join(", ", COLUMNS), sums(COLUMNS), increments);
    }

    /**
     * Compares the state counts with COUNT(*) of the job table and appends the difference as a correction
     * delta. One statement sees one snapshot, in which rows and deltas agree exactly unless something changed
     * the table behind pgqueue's back; later changes carry their own deltas, so the correction is exact under
     * concurrent traffic too, provided one reconciler runs at a time (two that compared the same snapshot
     * would both append the same correction): run it after taking {@link #reconcileLockStatement()} in the
     * same transaction. Scans the job table: run it rarely.
     */
    String reconcileStatement() {
        List<String> states = JobState.live().stream().map(JobState::value).toList();
        StringJoiner actual = new StringJoiner(", ");
        StringJoiner drift = new StringJoiner(", ");
        StringJoiner changed = new StringJoiner(" OR ");
        for (String state : states) {
            actual.add("count(*) FILTER (WHERE state = '" + state + "') AS " + state);
            drift.add("coalesce(a." + state + ", 0) - coalesce(r." + state + ", 0) AS " + state);
            changed.add(state + " <> 0");
        }
        String columns = String.join(", ", states);
        return """
                WITH actual AS (
                    SELECT queue, %1$s FROM {schema}.job GROUP BY queue
                ), recorded AS (
                    SELECT queue, %2$s
                    FROM (SELECT queue, %3$s FROM {schema}.queue_counter
                          UNION ALL
                          SELECT queue, %3$s FROM {schema}.queue_counter_delta) AS c
                    GROUP BY queue
                ), drift AS (
                    SELECT coalesce(a.queue, r.queue) AS queue, %4$s
                    FROM actual a FULL JOIN recorded r ON a.queue = r.queue
                ), corrected AS (
                    INSERT INTO {schema}.queue_counter_delta (queue, %3$s)
                    SELECT queue, %3$s FROM drift WHERE %5$s
                    RETURNING queue, %3$s
                )
                SELECT queue, %3$s FROM corrected ORDER BY queue
                """.formatted(actual, sums(states), columns, drift, changed);
    }

    /** Serialises reconciliation across the cluster until the end of the transaction. */
    String reconcileLockStatement() {
        return "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext(:lock))) AS locked";
    }

    private static String sums(List<String> columns) {
        StringJoiner sums = new StringJoiner(", ");
        columns.forEach((column) -> sums.add("sum(" + column + ") AS " + column));
        return sums.toString();
    }
}
