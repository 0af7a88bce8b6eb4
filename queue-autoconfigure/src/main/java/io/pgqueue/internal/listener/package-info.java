/**
 * The listener engine: containers of both delivery modes, their worker pool, poll waiter, acknowledgement
 * batcher and the executor that runs handlers. Internal: everything but {@link
 * io.pgqueue.internal.listener.ListenerContainers} is package-private. Depends on the public listener API,
 * {@code internal.persistence} and {@code internal.node}.
 */
@NullMarked
package io.pgqueue.internal.listener;

import org.jspecify.annotations.NullMarked;

