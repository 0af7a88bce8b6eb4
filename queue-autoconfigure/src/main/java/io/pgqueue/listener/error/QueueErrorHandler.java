package io.pgqueue.listener.error;

/**
 * Decides what happens to a job whose handler threw. Define a bean of this type to replace
 * {@link DefaultQueueErrorHandler}.
 */
@FunctionalInterface
public interface QueueErrorHandler {

    FailureDecision onFailure(FailedJob job, Throwable error, ExponentialBackoff backoff);
}
