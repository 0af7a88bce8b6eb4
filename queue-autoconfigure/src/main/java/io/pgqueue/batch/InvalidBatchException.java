package io.pgqueue.batch;

/**
 * A batch or an addition to it that cannot be stored as given (properties too large, a callback on an unknown
 * queue or with options a callback cannot have, an addition to a sealed or cancelled batch, a batch that does not
 * exist); nothing of it was stored.
 */
public class InvalidBatchException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public InvalidBatchException(String message) {
        super(message);
    }
}
