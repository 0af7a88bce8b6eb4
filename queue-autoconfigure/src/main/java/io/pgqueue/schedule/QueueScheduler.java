package io.pgqueue.schedule;

/**
 * Declares recurring jobs at run time, beside those of configuration ({@code pgqueue.schedules.*}) and
 * {@link RecurringJob} beans. Every node may fire any due schedule; each tick enqueues its job once across the
 * cluster. Operating declared schedules (pause, trigger, reschedule, remove) is {@code QueueAdmin}'s.
 */
public interface QueueScheduler {

    /** Declares a recurring job in the schedule table (keeping its next run if the definition is unchanged). */
    void register(RecurringJob job);
}
