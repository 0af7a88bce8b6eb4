package io.pgqueue.listener.error;

import java.time.Duration;

/**
 * The error of an attempt that ran past its timeout ({@code SendOptions.timeout}, the listener's
 * {@code timeout}): its handler's thread was interrupted, and the attempt failed with this, whatever the
 * handler did afterwards. Retried or sent dead like any failure.
 */
public class JobTimeoutException extends RuntimeException {

    public JobTimeoutException(long jobId, Duration timeout) {
        super("Job " + jobId + " timed out after " + timeout.toMillis() + " ms");
    }
}
