/**
 * pgqueue's {@link io.pgqueue.admin.QueueAdmin}: job lookups, cancellation, dead jobs, pausing and recurring
 * jobs at run time, over the repositories.
 */
@NullMarked
package io.pgqueue.internal.admin;

import org.jspecify.annotations.NullMarked;

