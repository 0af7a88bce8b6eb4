/**
 * Micrometer meters: gauges from the counters, and counters/timers of what this node's listeners did.
 * Depends on {@code admin} and {@code listener}.
 */
@NullMarked
package io.pgqueue.metrics;

import org.jspecify.annotations.NullMarked;
