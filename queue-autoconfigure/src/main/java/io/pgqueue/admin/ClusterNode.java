package io.pgqueue.admin;

import java.time.Instant;
import java.util.UUID;

/**
 * A node (application instance) of the cluster.
 *
 * @param id node id, the owner of the jobs it runs
 * @param host host name
 * @param pid process id
 * @param startedAt when it joined
 * @param heartbeatAt its last heartbeat
 */
public record ClusterNode(UUID id, String host, long pid, Instant startedAt, Instant heartbeatAt) {
}
