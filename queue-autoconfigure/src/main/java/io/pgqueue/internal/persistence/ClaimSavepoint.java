package io.pgqueue.internal.persistence;

/**
 * The savepoint a TRANSACTIONAL claim sets after it deletes its jobs (a fair claim: before): rolling back to it
 * undoes the handlers' writes, the claimed rows are put back ({@link Transition#CLAIM_RESTORE}), and the statement
 * that records their failure or snooze follows in the same round trip, so that no other worker can claim them in
 * between.
 */
final class ClaimSavepoint {

    static final String NAME = "pgqueue_claim";

    /** Sets the savepoint, in the claim's round trip. */
    static final String SET = "SAVEPOINT " + NAME;

    /**
     * The start of the round trip that ends a successful TRANSACTIONAL batch: what it writes after this is written
     * by the transaction itself, not by the claim's subtransaction.
     */
    static final String RELEASE = "RELEASE SAVEPOINT " + NAME;

    /** The start of the round trip that records a failure or snooze: the claim and the handlers' writes undone. */
    static final String ROLLBACK_TO = "ROLLBACK TO SAVEPOINT " + NAME;

    private ClaimSavepoint() {
    }
}
