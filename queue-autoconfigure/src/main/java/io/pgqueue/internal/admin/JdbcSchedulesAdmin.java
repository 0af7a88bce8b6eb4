package io.pgqueue.internal.admin;

import java.time.Duration;
import java.util.List;

import io.pgqueue.admin.SchedulesAdmin;
import io.pgqueue.internal.schedule.ScheduleOperations;
import io.pgqueue.model.ScheduleInfo;

/**
 * Recurring jobs at run time, through the schedule operations every node shares.
 */
final class JdbcSchedulesAdmin implements SchedulesAdmin {

    private final ScheduleOperations schedules;

    JdbcSchedulesAdmin(ScheduleOperations schedules) {
        this.schedules = schedules;
    }

    /** Every recurring job with its next and last tick. */
    @Override
    public List<ScheduleInfo> schedules() {
        return schedules.list();
    }

    /**
     * Removes a recurring job; returns whether it existed. A node that still declares it declares it again
     * when it starts.
     */
    @Override
    public boolean removeSchedule(String name) {
        return schedules.remove(name);
    }

    /** Stops firing a recurring job until resumed, on every node, across restarts. */
    @Override
    public void pauseSchedule(String name) {
        schedules.pause(name);
    }

    /** Fires a paused recurring job again from its next tick. */
    @Override
    public void resumeSchedule(String name) {
        schedules.resume(name);
    }

    /**
     * Enqueues one job of a recurring job now (its regular ticks go on); exactly one job however many nodes
     * are asked at once. Returns whether this call enqueued it.
     */
    @Override
    public boolean triggerSchedule(String name) {
        return schedules.trigger(name);
    }

    /** Gives a recurring job a new cron expression, kept over what configuration declares. */
    @Override
    public void rescheduleCron(String name, String cron) {
        schedules.reschedule(name, cron);
    }

    /** Gives a recurring job a new fixed rate, kept over what configuration declares. */
    @Override
    public void rescheduleFixedRate(String name, Duration fixedRate) {
        schedules.reschedule(name, fixedRate);
    }
}
