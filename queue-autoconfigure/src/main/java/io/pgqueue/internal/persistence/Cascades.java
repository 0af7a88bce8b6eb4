package io.pgqueue.internal.persistence;

import java.util.Collection;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * What the statements that finish a job must carry beside its own row: the workflow cascade (a node: its
 * dependants released, its workflow counted) and the batch cascade (a member: its batch counted, callbacks
 * fired). Decided once, when the job is claimed ({@link ClaimedJob#cascades()}), and carried with it to the
 * statement that finishes it, which is chosen by it: a plain job's acknowledgement and failure do without both.
 */
public enum Cascades {

    /** A plain job. */
    NONE("", false, false),

    /** A workflow's node. */
    NODES("nodes", true, false),

    /** A batch's member. */
    MEMBERS("members", false, true),

    /** Both: a batch of finished jobs with nodes and members in it (a single job is never both). */
    NODES_AND_MEMBERS("nodes+members", true, true);

    private final String catalogueName;

    private final boolean workflow;

    private final boolean batch;

    Cascades(String catalogueName, boolean workflow, boolean batch) {
        this.catalogueName = catalogueName;
        this.workflow = workflow;
        this.batch = batch;
    }

    /** The cascades of a job that is the node of {@code workflowId} and/or the member of {@code batchId}. */
    public static Cascades of(@Nullable Long workflowId, @Nullable Long batchId) {
        return of(workflowId != null, batchId != null);
    }

    private static Cascades of(boolean workflow, boolean batch) {
        return workflow ? (batch ? NODES_AND_MEMBERS : NODES) : (batch ? MEMBERS : NONE);
    }

    /** The cascades a statement finishing all of {@code jobs} together must carry. */
    public static <T> Cascades of(Collection<T> jobs, Function<T, Cascades> cascades) {
        Cascades all = NONE;
        for (T job : jobs) {
            all = all.and(cascades.apply(job));
        }
        return all;
    }

    /** These cascades and {@code other}'s. */
    public Cascades and(Cascades other) {
        return of(workflow || other.workflow, batch || other.batch);
    }

    /** Whether a finishing statement carries any cascade. */
    public boolean any() {
        return this != NONE;
    }

    public boolean workflow() {
        return workflow;
    }

    public boolean batch() {
        return batch;
    }

    /** The variant's suffix in the statement catalogue ({@code finish.complete:nodes}). */
    String catalogueName() {
        return catalogueName;
    }
}
