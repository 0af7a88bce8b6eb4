package io.pgqueue.model;

/**
 * A workflow's nodes by standing, read from its aggregate (never counted over its jobs).
 *
 * @param waiting nodes waiting for parents
 * @param active nodes scheduled, ready or running
 * @param dead nodes dead (until retried, purged or expired)
 * @param completed nodes whose handler succeeded
 * @param cancelled nodes cancelled (by an operator, by a failed parent's policy, or purged while dead)
 */
public record WorkflowCounts(long waiting, long active, long dead, long completed, long cancelled) {

    /** Every node the workflow has had. */
    public long total() {
        return waiting + active + dead + completed + cancelled;
    }

    /** The state these counts mean. */
    public WorkflowState state() {
        if (active > 0 || (waiting > 0 && dead == 0)) {
            return WorkflowState.RUNNING;
        }
        if (dead > 0 || waiting > 0) {
            return WorkflowState.FAILED;
        }
        return (cancelled > 0) ? WorkflowState.CANCELLED : WorkflowState.COMPLETED;
    }
}
