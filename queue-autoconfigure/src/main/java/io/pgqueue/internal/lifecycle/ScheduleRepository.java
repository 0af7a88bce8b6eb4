package io.pgqueue.internal.lifecycle;

import java.time.Instant;
import java.util.List;

/**
 * The schedule table: recurring jobs, and firing their ticks.
 */
public interface ScheduleRepository {

    /** Declares a schedule; an unchanged definition keeps its next run, a changed one starts afresh. */
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

    boolean delete(String name);
}
