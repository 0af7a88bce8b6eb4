package io.pgqueue.model;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import org.jspecify.annotations.Nullable;

/**
 * A recurring job as the cluster knows it.
 *
 * @param name schedule name
 * @param queue queue its jobs go to
 * @param cron cron expression (Spring's six fields), or null
 * @param fixedRate period, or null
 * @param zone time zone of the cron expression
 * @param missed what happens to ticks missed while no node ran
 * @param nextRunAt the next tick
 * @param lastRunAt the last tick fired, or null
 * @param paused whether it was paused at run time: it fires no tick until resumed
 * @param overridden whether its cron or rate was changed at run time: declarations (configuration, beans)
 * no longer change them
 */
public record ScheduleInfo(String name, String queue, @Nullable String cron, @Nullable Duration fixedRate, ZoneId zone,
        MissedTickPolicy missed, Instant nextRunAt, @Nullable Instant lastRunAt, boolean paused, boolean overridden) {
}
