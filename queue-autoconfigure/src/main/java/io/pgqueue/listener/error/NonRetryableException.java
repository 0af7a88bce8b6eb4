package io.pgqueue.listener.error;

/**
 * Thrown (or extended) by a handler to send its job dead at once instead of retrying it.
 */
public class NonRetryableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public NonRetryableException(String message) {
        super(message);
    }

    public NonRetryableException(String message, Throwable cause) {
        super(message, cause);
    }
}
