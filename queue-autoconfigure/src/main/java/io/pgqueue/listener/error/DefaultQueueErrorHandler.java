package io.pgqueue.listener.error;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Retries with the listener's exponential backoff until the job's attempts are used up, then sends it dead.
 * Exceptions of a not-retryable type ({@link NonRetryableException}, including payloads that cannot be read,
 * plus the configured types and their subclasses, also when found as a cause) send the job dead at once.
 */
public class DefaultQueueErrorHandler implements QueueErrorHandler {

    private final List<Class<? extends Throwable>> notRetryable;

    public DefaultQueueErrorHandler(List<Class<? extends Throwable>> notRetryable) {
        this.notRetryable = List.copyOf(notRetryable);
    }

    @Override
    public FailureDecision onFailure(FailedJob job, Throwable error, ExponentialBackoff backoff) {
        Throwable notRetryableCause = findNotRetryable(error);
        if (notRetryableCause != null) {
            return FailureDecision.dead("Not retryable: " + describe(notRetryableCause));
        }
        if (job.attempt() >= job.maxAttempts()) {
            return FailureDecision.dead("Failed " + job.attempt() + " of " + job.maxAttempts() + " attempts: "
                    + describe(error));
        }
        return FailureDecision.retryAfter(backoff.delayAfter(job.attempt()));
    }

    private @Nullable Throwable findNotRetryable(Throwable error) {
        for (Throwable current = error; current != null; current = current.getCause()) {
            if (current instanceof NonRetryableException) {
                return current;
            }
            for (Class<? extends Throwable> type : notRetryable) {
                if (type.isInstance(current)) {
                    return current;
                }
            }
            if (current.getCause() == current) {
                break;
            }
        }
        return null;
    }

    private static String describe(Throwable error) {
        return error.getClass().getName() + ((error.getMessage() != null) ? ": " + error.getMessage() : "");
    }
}
