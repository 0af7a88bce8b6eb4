/**
 * Wake-ups of listener containers: in-process after a commit in this JVM, NOTIFY (debounced) to other JVMs,
 * and the one LISTEN connection that receives theirs. The only code that sends NOTIFY or wakes a container.
 * Internal; depends on {@code internal.persistence} for the channel (its SQL lives there).
 */
@NullMarked
package io.pgqueue.internal.wakeup;

import org.jspecify.annotations.NullMarked;

