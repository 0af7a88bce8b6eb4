/**
 * Periodic, cluster-safe upkeep: promotion of due jobs, folding and reconciling the counters, retention.
 * Depends on {@code admin} and {@code internal.persistence}.
 */
@NullMarked
package io.pgqueue.internal.maintenance;

import org.jspecify.annotations.NullMarked;

