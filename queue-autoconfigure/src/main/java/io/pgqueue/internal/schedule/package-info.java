/**
 * Recurring jobs: firing due ticks (one job per tick across the cluster), computing ticks, and operating
 * schedules at run time.
 */
@NullMarked
package io.pgqueue.internal.schedule;

import org.jspecify.annotations.NullMarked;

