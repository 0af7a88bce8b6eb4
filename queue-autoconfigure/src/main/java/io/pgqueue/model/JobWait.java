package io.pgqueue.model;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a parked job waits for (durable execution); the job itself is scheduled until then.
 *
 * @param kind {@code sleep}, {@code event} or {@code job}
 * @param eventKey the awaited event's key (for {@code event})
 * @param awaitedJobId the awaited job's id (for {@code job})
 * @param until when the wait ends without its event (a sleep's end, a timeout); null for none
 * @param since when the job parked
 */
public record JobWait(String kind, @Nullable String eventKey, @Nullable Long awaitedJobId, @Nullable Instant until,
        Instant since) {
}
