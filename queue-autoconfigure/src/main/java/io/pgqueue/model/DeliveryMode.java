package io.pgqueue.model;

/**
 * How a listener receives and acknowledges jobs.
 */
public enum DeliveryMode {

    /**
     * Claim the job with a lease and commit; run the handler outside any transaction while a heartbeat
     * extends the lease; delete the job on success. At-least-once: survives long handlers, database
     * restarts and crashed nodes; a handler may run again if its node dies mid-job.
     */
    LEASE,

    /**
     * Claim (delete) the job, run the handler and commit in one transaction on the application's
     * transaction manager: the handler's own writes on the same DataSource commit exactly when the job is
     * acknowledged. For short handlers: the transaction stays open while the handler runs.
     */
    TRANSACTIONAL
}
