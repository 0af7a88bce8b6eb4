/**
 * Adapts a {@code @QueueListener} method to the engine: checks its signature, reads payloads into its
 * declared type, invokes it. Depends on {@code io.pgqueue} (payload codec) and {@code listener}.
 */
@NullMarked
package io.pgqueue.listener.adapter;

import org.jspecify.annotations.NullMarked;
