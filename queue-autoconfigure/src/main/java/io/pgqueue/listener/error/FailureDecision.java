package io.pgqueue.listener.error;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What happens to a job after a failed attempt: retry after a delay, or dead with a reason.
 *
 * @param retryDelay delay before the next attempt, or null for dead
 * @param reason why the job went dead, or null for a retry
 */
public record FailureDecision(@Nullable Duration retryDelay, @Nullable String reason) {

    public static FailureDecision retryAfter(Duration delay) {
        return new FailureDecision(Objects.requireNonNull(delay, "delay"), null);
    }

    public static FailureDecision dead(String reason) {
        return new FailureDecision(null, Objects.requireNonNull(reason, "reason"));
    }

    public boolean isDead() {
        return retryDelay == null;
    }
}
