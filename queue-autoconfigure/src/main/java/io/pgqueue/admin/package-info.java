/**
 * Operating queues from Java: {@link io.pgqueue.admin.QueueAdmin} (lookups, cancellation, dead jobs, pausing,
 * recurring jobs at run time) and {@link io.pgqueue.admin.Masking}. Public API; depends on the model only.
 */
@NullMarked
package io.pgqueue.admin;

import org.jspecify.annotations.NullMarked;

