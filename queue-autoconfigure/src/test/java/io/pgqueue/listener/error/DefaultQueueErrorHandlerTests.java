package io.pgqueue.listener.error;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DefaultQueueErrorHandlerTests {

    private final ExponentialBackoff backoff = new ExponentialBackoff(Duration.ofSeconds(1), 3.0,
            Duration.ofMinutes(1), 0);

    private final DefaultQueueErrorHandler handler = new DefaultQueueErrorHandler(List.of(IllegalArgumentException.class));

    @Test
    void retriesWithBackoffWhileAttemptsRemain() {
        FailureDecision decision = handler.onFailure(new FailedJob(1, "q", 2, 5), new IllegalStateException("x"),
                backoff);

        assertThat(decision.isDead()).isFalse();
        assertThat(decision.retryDelay()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void lastAttemptGoesDead() {
        FailureDecision decision = handler.onFailure(new FailedJob(1, "q", 5, 5), new IllegalStateException("boom"),
                backoff);

        assertThat(decision.isDead()).isTrue();
        assertThat(decision.reason()).isEqualTo("Failed 5 of 5 attempts: java.lang.IllegalStateException: boom");
    }

    @Test
    void notRetryableTypesGoDeadAtOnceAlsoAsCause() {
        FailureDecision configured = handler.onFailure(new FailedJob(1, "q", 1, 5),
                new RuntimeException("wrapped", new NumberFormatException("nan")), backoff);
        FailureDecision builtIn = handler.onFailure(new FailedJob(1, "q", 1, 5), new NonRetryableException("no"),
                backoff);

        assertThat(configured.reason()).isEqualTo("Not retryable: java.lang.NumberFormatException: nan");
        assertThat(builtIn.reason()).isEqualTo("Not retryable: " + NonRetryableException.class.getName() + ": no");
    }
}
