package io.pgqueue.admin;

import java.time.Duration;
import java.util.List;

import io.pgqueue.model.ScheduleInfo;

/**
 * Operating recurring jobs: list, pause, resume, trigger, reschedule, remove. Stored in the database and honoured by every node.
 * One role of {@link QueueAdmin}, which is all of them; inject the role a class needs.
 */
public interface SchedulesAdmin {

    /** Every recurring job with its next and last tick. */
    List<ScheduleInfo> schedules();

    /**
     * Removes a recurring job; returns whether it existed. A node that still declares it declares it again
     * when it starts.
     */
    boolean removeSchedule(String name);

    /** Stops firing a recurring job until resumed, on every node, across restarts. */
    void pauseSchedule(String name);

    /** Fires a paused recurring job again from its next tick. */
    void resumeSchedule(String name);

    /**
     * Enqueues one job of a recurring job now (its regular ticks go on); exactly one job however many nodes
     * are asked at once. Returns whether this call enqueued it.
     */
    boolean triggerSchedule(String name);

    /** Gives a recurring job a new cron expression, kept over what configuration declares. */
    void rescheduleCron(String name, String cron);

    /** Gives a recurring job a new fixed rate, kept over what configuration declares. */
    void rescheduleFixedRate(String name, Duration fixedRate);
}
