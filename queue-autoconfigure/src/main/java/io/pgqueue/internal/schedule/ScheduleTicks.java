package io.pgqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;

import io.pgqueue.internal.persistence.ScheduleRecord;
import io.pgqueue.schedule.RecurringJob;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

/**
 * The ticks of a schedule: the next one after an instant, and the latest one not after now.
 */
public final class ScheduleTicks {

    private final @Nullable CronExpression cron;

    private final @Nullable Duration fixedRate;

    private final ZoneId zone;

    private ScheduleTicks(@Nullable CronExpression cron, @Nullable Duration fixedRate, ZoneId zone) {
        this.cron = cron;
        this.fixedRate = fixedRate;
        this.zone = zone;
    }

    public static ScheduleTicks of(ScheduleRecord row) {
        return new ScheduleTicks((row.cron() != null) ? CronExpression.parse(row.cron()) : null,
                (row.fixedRateMillis() != null) ? Duration.ofMillis(row.fixedRateMillis()) : null,
                (row.zone() != null) ? ZoneId.of(row.zone()) : ZoneId.of("UTC"));
    }

    public static ScheduleTicks of(RecurringJob job) {
        return new ScheduleTicks((job.cron() != null) ? CronExpression.parse(job.cron()) : null, job.fixedRate(),
                job.zone());
    }

    /** The first tick strictly after {@code instant}. */
    public Instant next(Instant instant) {
        if (fixedRate != null) {
            // fixed-rate ticks are aligned to the epoch, so every node computes the same ones
            long period = fixedRate.toMillis();
            long millis = instant.toEpochMilli();
            return Instant.ofEpochMilli((Math.floorDiv(millis, period) + 1) * period);
        }
        ZonedDateTime next = cron.next(instant.atZone(zone));
        if (next == null) {
            throw new IllegalStateException("Cron expression has no next tick after " + instant);
        }
        return next.toInstant();
    }

    /** The latest tick at or after {@code due} and not after {@code now} ({@code due} itself if none later). */
    public Instant latest(Instant due, Instant now) {
        Instant latest = due;
        Instant next = next(due);
        while (!next.isAfter(now)) {
            latest = next;
            next = next(next);
        }
        return latest;
    }
}
