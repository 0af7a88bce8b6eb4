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
 * @param interruptGrace how long a handler interrupted for its timeout or cancellation may go on before it is
 * stuck: its lease is no longer renewed
 */
public record NodeSettings(Duration leaseDuration, Duration heartbeatInterval, Duration nodeTimeout,
        Duration shutdownTimeout, Duration interruptGrace) {

    /** Shortest heartbeat bound: the driver's statement timeout counts whole seconds. */
    private static final Duration MIN_HEARTBEAT_TIMEOUT = Duration.ofSeconds(1);

    /**
     * How long one heartbeat may take and still count as proof of life: a third of the node timeout (at least
     * a second). A heartbeat that took longer waited on a lock, a stalled commit or a starved pool; what it
     * wrote says nothing about the time between, so the node treats it as a missed beat and, like after an
     * outage, judges no other node until it has been alive again for a whole node timeout.
     */
    public Duration heartbeatTimeout() {
        Duration third = nodeTimeout.dividedBy(3);
        return (third.compareTo(MIN_HEARTBEAT_TIMEOUT) < 0) ? MIN_HEARTBEAT_TIMEOUT : third;
    }
}
