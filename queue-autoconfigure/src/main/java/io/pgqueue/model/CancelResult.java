package io.pgqueue.model;

/**
 * What cancelling one job did.
 */
public enum CancelResult {

    /** The job had not started: it finished as cancelled at once. */
    CANCELLED,

    /**
     * The job is running (LEASE): its node interrupts the handler at its next heartbeat, and the job finishes as
     * cancelled whatever the handler does.
     */
    CANCEL_REQUESTED
}
