package io.pgqueue.internal.persistence;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The steps of a statement: named common table expressions, each one query, run in order in one round trip, and
 * then the statement's final query. The one way pgqueue composes a statement from parts: a transition's own
 * change, the counter deltas of its aggregates ({@link Counters}), the history's copy ({@link JdbcHistoryRepository}),
 * the cascades of workflows, batches and fair keys. A part made elsewhere is itself {@code Steps}, taken whole; a
 * part that a setting switches off is {@link #NONE}. Immutable: composing returns new steps.
 *
 * <p>A chain that carries a recursive step (the workflow cascade's transitive cancellation) is rendered
 * {@code WITH RECURSIVE}, whichever part brought it.
 */
final class Steps {

    /** No step: what a switched-off part contributes. */
    static final Steps NONE = new Steps(List.of(), false, null);

    /** A step's name, optionally with its column names: {@code wf_doomed (id, root, parent)}. */
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*( \\([a-z_]+(, [a-z_]+)*\\))?");

    /**
     * One step: a named common table expression.
     *
     * @param name its name (and column names), which later steps and the final query read it by
     * @param query its query (a SELECT, or a data-modifying statement with RETURNING when read)
     * @param once whether it is computed once whatever reads it ({@code MATERIALIZED}); otherwise a SELECT read by
     * one step only is merged into that step's query, which may run it again for every row it joins
     */
    record Step(String name, String query, boolean once) {

        Step {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("Invalid step name '" + name + "'");
            }
            query = query.stripIndent().strip();
        }
    }

    private final List<Step> steps;

    private final boolean recursive;

    /** The tag of the transition the statement carries out, written before it (where logs show it), or null. */
    private final @Nullable String tag;

    private Steps(List<Step> steps, boolean recursive, @Nullable String tag) {
        this.steps = steps;
        this.recursive = recursive;
        this.tag = tag;
    }

    /** One step. */
    static Steps step(String name, String query) {
        return new Steps(List.of(new Step(name, query, false)), false, null);
    }

    /**
     * One step computed once, however the plan reads it: for a row of arrays that later steps search (an aggregate
     * merged into a join was aggregated again for each row of the other side when the planner put it inside a
     * nested loop).
     */
    static Steps onceStep(String name, String query) {
        return new Steps(List.of(new Step(name, query, true)), false, null);
    }

    /** One step that reads itself (a {@code UNION} over its own rows): the chain is {@code WITH RECURSIVE}. */
    static Steps recursiveStep(String name, String query) {
        return new Steps(List.of(new Step(name, query, false)), true, null);
    }

    /** These steps, then one more. */
    Steps then(String name, String query) {
        return then(step(name, query));
    }

    /** These steps, then the given ones. */
    Steps then(Steps more) {
        if (more.steps.isEmpty()) {
            return this;
        }
        List<Step> all = new ArrayList<>(steps);
        all.addAll(more.steps);
        return new Steps(List.copyOf(all), recursive || more.recursive, (tag != null) ? tag : more.tag);
    }

    /**
     * These steps as the statement of a transition: its tag ({@code /* pgqueue:complete *}{@code /}) is written
     * first, where {@code pg_stat_activity} shows it however long the statement is (its text is cut at
     * {@code track_activity_query_size}). The transitions of a cascade's steps are tagged inside those steps.
     */
    Steps tagged(Transition transition) {
        return new Steps(steps, recursive, transition.tag());
    }

    /** Whether the chain has no step. */
    boolean isEmpty() {
        return steps.isEmpty();
    }

    /**
     * The statement: the steps as a {@code WITH} clause, then the final query (the query alone when there is no
     * step).
     */
    String select(String query) {
        String last = query.stripIndent().strip();
        String prefix = (tag != null) ? tag : "";
        if (steps.isEmpty()) {
            return prefix + last;
        }
        StringBuilder sql = new StringBuilder(prefix).append(recursive ? "WITH RECURSIVE " : "WITH ");
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            if (i > 0) {
                sql.append(", ");
            }
            sql.append(step.name()).append(step.once() ? " AS MATERIALIZED (\n" : " AS (\n");
            step.query().lines().forEach((line) -> sql.append(line.isEmpty() ? "" : "    ").append(line).append('\n'));
            sql.append(')');
        }
        return sql.append('\n').append(last).toString();
    }
}
