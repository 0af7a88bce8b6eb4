package io.pgqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.pgqueue.internal.persistence.ScheduleRecord;
import io.pgqueue.internal.persistence.ScheduleRepository;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.ScheduleInfo;
import io.pgqueue.schedule.RecurringJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Operating recurring jobs at run time, cluster-wide: every change is stored in the schedule table and seen
 * by every node's next poll. A schedule paused here stays paused across restarts, and one whose cron or rate
 * is changed here keeps it, even while configuration still declares the old one. Reached through
 * {@code QueueAdmin} and the Actuator endpoint.
 */
public final class ScheduleOperations {

    private static final Log logger = LogFactory.getLog(ScheduleOperations.class);

    /** How long after a trigger another trigger of the same schedule is the same one. */
    public static final Duration TRIGGER_WINDOW = Duration.ofSeconds(2);

    private final ScheduleRepository store;

    private final Wakeups wakeups;

    public ScheduleOperations(ScheduleRepository store, Wakeups wakeups) {
        this.store = store;
        this.wakeups = wakeups;
    }

    /** Every recurring job with its next and last tick. */
    public List<ScheduleInfo> list() {
        return store.all().stream().map(ScheduleRecord::info).toList();
    }

    /** Stops firing the schedule until {@link #resume(String)}. */
    public void pause(String name) {
        if (!store.setPaused(existing(name).name(), true, null)) {
            throw noSuchSchedule(name);
        }
        logger.info("Recurring job '" + name + "' paused");
    }

    /** Fires the schedule again from its next tick after now; ticks that fell in the pause are skipped. */
    public void resume(String name) {
        ScheduleRecord schedule = existing(name);
        store.setPaused(name, false, ScheduleTicks.of(schedule).next(store.now()));
        logger.info("Recurring job '" + name + "' resumed");
    }

    /**
     * Enqueues one job of the schedule now, besides its regular ticks, which go on unchanged. A trigger is
     * one job however many nodes are asked: its job holds the schedule's trigger key while it is pending
     * and for {@link #TRIGGER_WINDOW} after it was sent, and a trigger meanwhile enqueues nothing.
     * @return whether this call enqueued the job (false when another trigger got there first)
     */
    public boolean trigger(String name) {
        ScheduleRecord schedule = existing(name);
        Instant now = store.now();
        boolean fired = wakeups.enqueueIf(schedule.queue(),
                (notify) -> store.trigger(schedule, now, TRIGGER_WINDOW, notify));
        if (fired) {
            logger.info("Recurring job '" + name + "' triggered");
        }
        return fired;
    }

    /** Runs the schedule on a cron expression from now on (Spring's six fields). */
    public void reschedule(String name, String cron) {
        ScheduleRecord schedule = existing(name);
        RecurringJob job = RecurringJob.builder(name).queue(schedule.queue()).cron(Objects.requireNonNull(cron, "cron"))
            .zone(schedule.info().zone()).build();
        redefine(schedule, job, cron, null);
    }

    /** Runs the schedule at a fixed rate from now on. */
    public void reschedule(String name, Duration fixedRate) {
        ScheduleRecord schedule = existing(name);
        RecurringJob job = RecurringJob.builder(name).queue(schedule.queue())
            .fixedRate(Objects.requireNonNull(fixedRate, "fixedRate")).build();
        redefine(schedule, job, null, fixedRate.toMillis());
    }

    private void redefine(ScheduleRecord schedule, RecurringJob job, String cron, Long fixedRateMillis) {
        store.redefine(schedule.name(), cron, fixedRateMillis, ScheduleTicks.of(job).next(store.now()));
        logger.info("Recurring job '" + schedule.name() + "' rescheduled to "
                + ((cron != null) ? "cron '" + cron + "'" : "every " + fixedRateMillis + " ms"));
    }

    /**
     * Removes the schedule; returns whether it existed. A node that declares it (configuration, a bean)
     * declares it again when it starts.
     */
    public boolean remove(String name) {
        return store.delete(name);
    }

    private ScheduleRecord existing(String name) {
        ScheduleRecord schedule = store.find(Objects.requireNonNull(name, "name"));
        if (schedule == null) {
            throw noSuchSchedule(name);
        }
        return schedule;
    }

    private static IllegalArgumentException noSuchSchedule(String name) {
        return new IllegalArgumentException("No recurring job named '" + name + "'");
    }
}
