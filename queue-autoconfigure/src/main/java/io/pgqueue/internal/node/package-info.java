/**
 * This JVM as a member of the cluster: its node row and heartbeat, renewal of its leases, rescue of the jobs
 * of nodes that are gone, and the release of unfinished jobs at shutdown. Internal; depends on
 * {@code internal.persistence}.
 */
@NullMarked
package io.pgqueue.internal.node;

import org.jspecify.annotations.NullMarked;

