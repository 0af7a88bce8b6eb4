/**
 * Recurring jobs: their definition ({@link io.pgqueue.schedule.RecurringJob}) and declaring them at run time
 * ({@link io.pgqueue.schedule.QueueScheduler}). Public API; firing them is internal.
 */
@NullMarked
package io.pgqueue.schedule;

import org.jspecify.annotations.NullMarked;

