package io.pgqueue.internal.node;

import java.time.Duration;

/**
 * Timing of this node's membership.
 *
 * @param leaseDuration how long a claimed LEASE job is held without a heartbeat
 * @param heartbeatInterval how often the node marks itself alive and renews its leases; also how often it
 * looks for jobs to rescue
 * @param nodeTimeout a node whose heartbeat is older than this is considered gone and its jobs are released
 * @param shutdownTimeout how long a stopping container lets running handlers finish
 */
public record NodeSettings(Duration leaseDuration, Duration heartbeatInterval, Duration nodeTimeout,
        Duration shutdownTimeout) {
}
