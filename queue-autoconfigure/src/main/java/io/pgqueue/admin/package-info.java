/**
 * Operating queues from Java ({@link io.pgqueue.admin.QueueAdmin}) and the public views it returns: queue
 * counts and stats, dead jobs, cluster nodes. Public API; depends on {@code internal.lifecycle}.
 */
@NullMarked
package io.pgqueue.admin;

import org.jspecify.annotations.NullMarked;
