package io.pgqueue.internal.persistence;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.pgqueue.model.JobState;

/**
 * The counts behind the gauges, never computed with COUNT(*) on the hot path: every statement that carries
 * out a {@link Transition} appends one delta row per key of an {@link Aggregate} (per queue today) to its delta
 * table (no index, no row lock shared with other writers), a cluster-safe squeeze folds the deltas into the
 * aggregate's table, and readers add both. This class is the only place that knows the delta tables: it
 * generates each transition's delta from the transition table, so a count can only be wrong if the table is.
 */
final class Counters {

    /**
     * Counts kept per key without a hot row: the table the squeeze folds into (one row per key) and the
     * append-only delta table, both with one column per live state and per total. Counts per workflow, per
     * batch or per fairness key are further aggregates of the same shape.
     *
     * @param table the folded counts, keyed by {@code key}
     * @param deltaTable the deltas not folded yet
     * @param key the key column, which the changed rows of a statement return too
     * @param columns the counted columns of both tables
     */
    record Aggregate(String table, String deltaTable, String key, List<String> columns) {

        /** The counts per queue behind the gauges, the endpoint and health. */
        static final Aggregate QUEUE = new Aggregate("queue_counter", "queue_counter_delta", "queue", COLUMNS);

        /**
         * The counts per workflow: nodes waiting, active (scheduled, ready or running: a claim does not change
         * them), dead, completed and cancelled; appended by {@link WorkflowCascade}'s statements.
         */
        static final Aggregate WORKFLOW = new Aggregate("workflow_counter", "workflow_counter_delta", "workflow_id",
                List.of("waiting", "active", "dead", "completed", "cancelled"));

        /**
         * The counts per batch: members active (waiting, scheduled, ready or running), dead, completed and
         * cancelled; appended by {@link BatchCascade}'s statements.
         */
        static final Aggregate BATCH = new Aggregate("batch_counter", "batch_counter_delta", "batch_id",
                List.of("active", "dead", "completed", "cancelled"));

        /**
         * The delta of each column, as sums over rows that carry the standing they had ({@code was}) and have
         * ({@code now_is}), for an aggregate whose columns are standings (per workflow, per batch).
         */
        String standingDeltas() {
            StringJoiner sums = new StringJoiner(", ");
            for (String standing : columns) {
                sums.add("sum((now_is = '" + standing + "')::int - (was = '" + standing + "')::int)");
            }
            return sums.toString();
        }

        /**
         * The step {@code name} that appends this aggregate's deltas, per key, of the rows of {@code moves}: a query
         * of (key, was, now_is), each a standing this aggregate counts ({@code 'none'} for a row that was not
         * counted before).
         */
        Steps delta(String name, String moves) {
            return Steps.step(name, """
                    INSERT INTO {schema}.%1$s (%2$s, %3$s)
                    SELECT %2$s, %4$s
                    FROM (%5$s) AS m
                    GROUP BY %2$s""".formatted(deltaTable, key, String.join(", ", columns), standingDeltas(), moves));
        }

        /**
         * As {@link #delta(String, String)} for moves known when the statement is composed: each of
         * {@code moves} moves every row of its query (returning the key) from one standing to another, so the
         * deltas are plain counts, without a comparison per row (the acknowledgement of a thousand members is a
         * hot path).
         */
        Steps delta(String name, Move... moves) {
            List<String> touched = columns.stream()
                .filter((column) -> java.util.Arrays.stream(moves).anyMatch((move) -> move.touches(column)))
                .toList();
            if (moves.length == 1) {
                StringJoiner counts = new StringJoiner(", ");
                touched.forEach((column) -> counts.add(moves[0].from().equals(column) ? "-count(*)" : "count(*)"));
                return Steps.step(name, """
                        INSERT INTO {schema}.%1$s (%2$s, %3$s)
                        SELECT %2$s, %4$s FROM (%5$s) AS m GROUP BY %2$s""".formatted(deltaTable, key,
                        String.join(", ", touched), counts, moves[0].rows()));
            }
            StringJoiner branches = new StringJoiner("\n      UNION ALL\n      ");
            for (Move move : moves) {
                StringJoiner values = new StringJoiner(", ");
                touched.forEach((column) -> values.add(Integer.toString(move.delta(column))));
                branches.add("SELECT " + key + ", " + values + " FROM (" + move.rows() + ") AS r");
            }
            return Steps.step(name, """
                    INSERT INTO {schema}.%1$s (%2$s, %3$s)
                    SELECT %2$s, %4$s
                    FROM (%5$s) AS m (%2$s, %3$s)
                    GROUP BY %2$s""".formatted(deltaTable, key, String.join(", ", touched),
                    String.join(", ", touched.stream().map((column) -> "sum(" + column + ")").toList()), branches));
        }
    }

    /**
     * Every row of {@code rows} (a query returning an aggregate's key) moves from standing {@code from} to
     * standing {@code to} ({@code 'none'}: not counted).
     */
    record Move(String rows, String from, String to) {

        boolean touches(String column) {
            return from.equals(column) || to.equals(column);
        }

        int delta(String column) {
            return (to.equals(column) ? 1 : 0) - (from.equals(column) ? 1 : 0);
        }
    }

    /** The counter tables: the folded counts, and the deltas not folded yet, per queue, workflow and batch. */
    static final List<String> TABLES = List.of("queue_counter", "queue_counter_delta", "workflow_counter",
            "workflow_counter_delta", "batch_counter", "batch_counter_delta");

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

    private final Aggregate aggregate;

    Counters(boolean enabled) {
        this(enabled, Aggregate.QUEUE);
    }

    Counters(boolean enabled, Aggregate aggregate) {
        this.enabled = enabled;
        this.aggregate = aggregate;
    }

    boolean enabled() {
        return enabled;
    }

    /**
     * The step that appends the deltas of a transition, to follow the step {@code changed}, or {@link Steps#NONE}
     * when counters are off. {@code changed} must return the aggregate's key column and, when the transition can
     * reach several states, the new {@code state}.
     */
    Steps delta(Transition transition, String changed, Rows rows) {
        if (!enabled) {
            return Steps.NONE;
        }
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        Transition undone = transition.undoes();
        deltas((undone != null) ? undone : transition, rows, columns, values);
        if (undone != null) {
            values.replaceAll((value) -> "-(" + value + ")");
        }
        String key = aggregate.key();
        return Steps.step("counted_" + transition.name().toLowerCase(java.util.Locale.ROOT),
                "INSERT INTO {schema}." + aggregate.deltaTable() + " (" + key + ", " + String.join(", ", columns)
                        + ")\nSELECT " + key + ", " + String.join(", ", values) + " FROM " + changed
                        + ((rows == Rows.MANY) ? " GROUP BY " + key : ""));
    }

    /** The counter columns a transition changes and, in the same order, by how much. */
    private static void deltas(Transition transition, Rows rows, List<String> columns, List<String> values) {
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

    /** Every key's counts (every queue's): the folded counters plus the deltas not folded yet. */
    String countsQuery() {
        return countsQuery("");
    }

    /** The counts of the keys the condition (on the key column) selects, as {@link #countsQuery()}. */
    String countsQuery(String keyCondition) {
        String key = aggregate.key();
        String where = keyCondition.isEmpty() ? "" : " WHERE " + keyCondition;
        List<String> columns = aggregate.columns();
        return "SELECT " + key + ", " + sums(columns) + "\nFROM (SELECT " + key + ", " + String.join(", ", columns)
                + " FROM {schema}." + aggregate.table() + where + "\n      UNION ALL\n      SELECT " + key + ", "
                + String.join(", ", columns) + " FROM {schema}." + aggregate.deltaTable() + where
                + ") AS counts\nGROUP BY " + key + " ORDER BY " + key;
    }

    /** The keys (queues) the counters know. */
    String queuesQuery() {
        return "SELECT " + aggregate.key() + " FROM {schema}." + aggregate.table() + " UNION SELECT " + aggregate.key()
                + " FROM {schema}." + aggregate.deltaTable();
    }

    /**
     * Folds every committed delta into the counters: one squeezer at a time across the cluster (advisory
     * lock), others skip. Writers never touch queue_counter, so they never wait for this.
     */
    String squeezeStatement() {
        return squeezeStatement(Steps.NONE);
    }

    /**
     * As {@link #squeezeStatement()}, with further steps that may read {@code folded}: each key whose deltas were
     * folded, with its new counts.
     */
    String squeezeStatement(Steps afterFolded) {
        StringJoiner increments = new StringJoiner(", ");
        List<String> columns = aggregate.columns();
        columns.forEach((column) -> increments.add(column + " = c." + column + " + excluded." + column));
        String counted = String.join(", ", columns);
        String key = aggregate.key();
        return Steps.step("squeezer", "SELECT pg_try_advisory_xact_lock(hashtext(:lock)) AS granted")
            .then("moved", """
                DELETE FROM {schema}.%s WHERE (SELECT granted FROM squeezer)
                RETURNING %s, %s""".formatted(aggregate.deltaTable(), key, counted))
            .then("summed", "SELECT %s, %s FROM moved GROUP BY %s".formatted(key, sums(columns), key))
            .then("folded", """
                INSERT INTO {schema}.%1$s AS c (%2$s, %3$s)
                SELECT %2$s, %3$s FROM summed
                ON CONFLICT (%2$s) DO UPDATE SET %4$s, updated_at = now()
                RETURNING %2$s, %3$s""".formatted(aggregate.table(), key, counted, increments))
            .then(afterFolded)
            .select("SELECT count(*) FROM moved");
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
                    SELECT %6$s, %1$s FROM {schema}.job GROUP BY %6$s
                ), recorded AS (
                    SELECT %6$s, %2$s
                    FROM (SELECT %6$s, %3$s FROM {schema}.%7$s
                          UNION ALL
                          SELECT %6$s, %3$s FROM {schema}.%8$s) AS c
                    GROUP BY %6$s
                ), drift AS (
                    SELECT coalesce(a.%6$s, r.%6$s) AS %6$s, %4$s
                    FROM actual a FULL JOIN recorded r ON a.%6$s = r.%6$s
                ), corrected AS (
                    INSERT INTO {schema}.%8$s (%6$s, %3$s)
                    SELECT %6$s, %3$s FROM drift WHERE %5$s
                    RETURNING %6$s, %3$s
                )
                SELECT %6$s, %3$s FROM corrected ORDER BY %6$s
                """.formatted(actual, sums(states), columns, drift, changed, aggregate.key(), aggregate.table(),
                aggregate.deltaTable());
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
