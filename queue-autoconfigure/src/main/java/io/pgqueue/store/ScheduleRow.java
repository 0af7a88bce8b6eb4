package io.pgqueue.store;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A recurring job as stored in the schedule table.
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
 */
public record ScheduleRow(String name, String queue, @Nullable String cron, @Nullable Long fixedRateMillis,
        @Nullable String zone, @Nullable String payloadJson, @Nullable String payloadType, String missed,
        Instant nextRunAt, @Nullable Instant lastRunAt) {
}
