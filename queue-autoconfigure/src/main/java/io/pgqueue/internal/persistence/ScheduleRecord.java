package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import io.pgqueue.model.MissedTickPolicy;
import io.pgqueue.model.ScheduleInfo;
import org.jspecify.annotations.Nullable;

/**
 * A recurring job as stored in the schedule table, with its payload.
 *
 * @param name schedule name
 * @param queue queue its jobs go to
 * @param cron cron expression (Spring's six fields), or null
 * @param fixedRateMillis period, or null
 * @param zone time zone of the cron expression, or null for UTC
 * @param payloadJson payload of each job as JSON, or null
 * @param payloadType Java type of the payload, or null
 * @param missed FIRE_ONCE or SKIP
 * @param nextRunAt the next tick
 * @param lastRunAt the last tick fired, or null
 * @param paused whether it was paused at run time (it fires no tick)
 * @param overridden whether its cron or rate was changed at run time (declarations keep that)
 */
public record ScheduleRecord(String name, String queue, @Nullable String cron, @Nullable Long fixedRateMillis,
        @Nullable String zone, @Nullable String payloadJson, @Nullable String payloadType, String missed,
        Instant nextRunAt, @Nullable Instant lastRunAt, boolean paused, boolean overridden) {

    /** What operators see of it (no payload). */
    public ScheduleInfo info() {
        return new ScheduleInfo(name, queue, cron, (fixedRateMillis != null) ? Duration.ofMillis(fixedRateMillis) : null,
                (zone != null) ? ZoneId.of(zone) : ZoneId.of("UTC"), MissedTickPolicy.valueOf(missed), nextRunAt,
                lastRunAt, paused, overridden);
    }
}
