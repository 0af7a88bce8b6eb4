/**
 * Publishing: pgqueue's {@link io.pgqueue.QueueTemplate}, which turns payloads and options into job rows and
 * wakes their listeners after the commit.
 */
@NullMarked
package io.pgqueue.internal.publish;

import org.jspecify.annotations.NullMarked;

