/**
 * The listener API: {@link io.pgqueue.listener.JobContext}, container options and their resolution, the
 * container factory and registry, observers. Public; the engine behind it is in {@code internal.listener}.
 */
@NullMarked
package io.pgqueue.listener;

import org.jspecify.annotations.NullMarked;

