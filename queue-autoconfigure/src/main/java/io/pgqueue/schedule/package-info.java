/**
 * Recurring jobs: their definition, the scheduler that fires each tick exactly once across the cluster,
 * and the view operators see. Depends on {@code internal.lifecycle} and {@code internal.wakeup}.
 */
@NullMarked
package io.pgqueue.schedule;

import org.jspecify.annotations.NullMarked;

