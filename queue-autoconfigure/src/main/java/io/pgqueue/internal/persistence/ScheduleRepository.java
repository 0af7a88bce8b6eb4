package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The schedule table: recurring jobs, and firing their ticks.
 */
public interface ScheduleRepository {

    /**
     * Declares a schedule; an unchanged definition keeps its next run, a changed one starts afresh. A schedule
     * paused at run time stays paused, and one redefined at run time keeps its cron or rate.
     */
    void declare(ScheduleRecord schedule);

    List<ScheduleRecord> all();

    List<ScheduleRecord> due();

    /** The database clock, which decides when ticks are due. */
    Instant now();

    /**
     * Moves the schedule from the tick it was due at to {@code next}, if no node did yet, and in the same
     * statement enqueues the tick's job ({@link Transition#ENQUEUE}) when {@code enqueue}; with
     * {@code notify}, that statement also notifies the queue.
     * @return whether this call won the tick
     */
    boolean fire(ScheduleRecord schedule, Instant tick, Instant next, boolean enqueue, boolean notify);

    /**
     * Enqueues one job of the schedule now ({@link Transition#ENQUEUE}), leaving its next tick as it is. The
     * job holds the trigger's dedup key while it is pending and for {@code window} after: a trigger asked
     * again meanwhile (on any node) enqueues nothing.
     * @return whether this call enqueued the job
     */
    boolean trigger(ScheduleRecord schedule, Instant now, Duration window, boolean notify);

    boolean delete(String name);

    @Nullable ScheduleRecord find(String name);

    /** Pauses or resumes a schedule, moving its next run when {@code nextRunAt} is given; whether it exists. */
    boolean setPaused(String name, boolean paused, @Nullable Instant nextRunAt);

    /** Gives a schedule a cron expression or a fixed rate at run time, which later declarations keep. */
    boolean redefine(String name, @Nullable String cron, @Nullable Long fixedRateMillis, Instant nextRunAt);
}
