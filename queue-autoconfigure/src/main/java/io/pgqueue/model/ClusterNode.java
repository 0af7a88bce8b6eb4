package io.pgqueue.model;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A node (application instance) of the cluster.
 *
 * @param id node id, the owner of the jobs it runs
 * @param host host name
 * @param pid process id
 * @param startedAt when it joined
 * @param heartbeatAt its last heartbeat
 * @param containers its listener containers with their in-flight jobs, as of its last heartbeat
 */
public record ClusterNode(UUID id, String host, long pid, Instant startedAt, Instant heartbeatAt,
        List<NodeContainer> containers) {

    public ClusterNode {
        containers = List.copyOf(containers);
    }

    /** Jobs the node was running at its last heartbeat. */
    public int inFlight() {
        return containers.stream().mapToInt(NodeContainer::inFlight).sum();
    }
}
