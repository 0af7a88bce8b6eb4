package io.pgqueue.model;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A dead job, for listing.
 *
 * @param id job id
 * @param queue queue name
 * @param attempts attempts made
 * @param lastError why it is dead
 * @param payload payload as JSON text, or null when read without content
 * @param payloadType Java type recorded at send
 * @param enqueuedAt when it was sent
 */
public record DeadJob(long id, String queue, int attempts, @Nullable String lastError, @Nullable String payload,
        @Nullable String payloadType, Instant enqueuedAt) {
}
