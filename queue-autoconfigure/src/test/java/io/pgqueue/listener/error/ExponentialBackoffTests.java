package io.pgqueue.listener.error;

import java.time.Duration;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ExponentialBackoffTests {

    @Test
    void growsByTheMultiplierUpToTheMax() {
        ExponentialBackoff backoff = new ExponentialBackoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10), 0);

        assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofSeconds(4));
        assertThat(backoff.delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
        assertThat(backoff.delayAfter(5)).isEqualTo(Duration.ofSeconds(10));
        assertThat(backoff.delayAfter(60)).isEqualTo(Duration.ofSeconds(10));
    }

    @RepeatedTest(20)
    void jitterStaysWithinItsFraction() {
        ExponentialBackoff backoff = new ExponentialBackoff(Duration.ofSeconds(10), 1.0, Duration.ofMinutes(1), 0.2);

        assertThat(backoff.delayAfter(1)).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(12));
    }

    @Test
    void rejectsNonsense() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new ExponentialBackoff(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(2), 0))
            .withMessage("multiplier must be at least 1: 0.5");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new ExponentialBackoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(2), 1.0))
            .withMessage("jitter must be at least 0 and below 1: 1.0");
    }
}
