package io.pgqueue.store;

import java.time.Instant;
import java.util.UUID;

/**
 * A node of the cluster as recorded in the node table.
 *
 * @param id node id
 * @param host host name
 * @param pid process id
 * @param startedAt when it registered
 * @param heartbeatAt its last heartbeat
 */
public record NodeInfo(UUID id, String host, long pid, Instant startedAt, Instant heartbeatAt) {
}
