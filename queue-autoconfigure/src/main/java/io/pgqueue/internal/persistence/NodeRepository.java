package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.NodeContainer;
import org.jspecify.annotations.Nullable;

/**
 * The node table: cluster membership.
 */
public interface NodeRepository {

    /**
     * Registers the node or marks it alive (registering it again if a rescue removed it after a long pause),
     * and renews the leases of the given running jobs in the same statement, never shortening a lease a
     * handler extended further; records the node's containers as they are now. The node's heartbeat time and
     * the renewed leases are the database's clock when the statement got its locks, not when it was sent.
     * @param containers what the node runs now, or null when unchanged since the last heartbeat that wrote them
     * (the row keeps what it has; a re-registered row starts with none until the next write)
     * @param timeout bound of this statement, lock waits included
     * @return the ids among the running jobs whose cancellation was requested
     */
    List<Long> heartbeat(UUID node, String host, long pid, Duration lease, long[] runningJobIds,
            @Nullable List<NodeContainer> containers, Duration timeout);

    void unregister(UUID node);

    /** Every registered node, oldest first. */
    List<ClusterNode> nodes();
}
