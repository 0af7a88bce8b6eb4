package io.pgqueue.workflow;

/**
 * What becomes of a workflow node when one of its parents ends dead or cancelled instead of completing.
 */
public enum DependencyPolicy {

    /**
     * The node is cancelled, and so are its own dependants by their edges' policies (the cause is recorded on
     * each node). The default.
     */
    CANCEL,

    /** The edge counts as satisfied: the node runs once its other parents finished, and can see which failed. */
    RUN,

    /**
     * The node keeps waiting while the parent is dead: retrying the dead parent and its success release it. A
     * parent that is cancelled (or purged, or expired while dead) cancels it.
     */
    HOLD;

    /** The value stored with the edge. */
    public String value() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
