/**
 * {@code @QueueListener} and the bean post-processor that turns annotated methods into listener endpoints.
 * Public API; depends on {@code listener}.
 */
@NullMarked
package io.pgqueue.annotation;

import org.jspecify.annotations.NullMarked;

