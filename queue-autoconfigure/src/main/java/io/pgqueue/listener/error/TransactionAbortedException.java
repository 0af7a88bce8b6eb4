package io.pgqueue.listener.error;

/**
 * The error of a TRANSACTIONAL attempt whose handler returned normally although PostgreSQL had aborted its
 * transaction: a statement failed, and the handler (or code it called) caught the SQL error and did not rethrow
 * it. PostgreSQL refuses every later statement of that transaction, and its {@code COMMIT} answers
 * {@code ROLLBACK}, which the driver does not report; the attempt is therefore failed on the spot, the handler's
 * writes rolled back with it, and it is retried or sent dead like any failure. The SQL error itself is in the log
 * of whatever caught it; this names the job only.
 */
public class TransactionAbortedException extends RuntimeException {

    public TransactionAbortedException(long jobId) {
        super("Job " + jobId + "'s handler returned, but a statement in its transaction had failed and the "
                + "transaction was aborted (the SQL error was caught and not rethrown); its writes are rolled back");
    }
}
