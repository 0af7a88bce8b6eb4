package io.pgqueue.listener.error;

/**
 * A job's payload could not be read into the listener's parameter type. Never retried: the same bytes would
 * fail the same way.
 */
public class PayloadConversionException extends NonRetryableException {

    private static final long serialVersionUID = 1L;

    public PayloadConversionException(String message) {
        super(message);
    }

    public PayloadConversionException(String message, Throwable cause) {
        super(message, cause);
    }
}
