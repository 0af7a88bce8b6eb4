package io.pgqueue.model;

import java.util.UUID;

/**
 * A node listening to a queue, as its last heartbeat described it: which node, and with what container.
 *
 * @param node the node's id
 * @param host host the node runs on
 * @param pid the node's process id
 * @param container the listener container's id
 * @param mode the container's delivery mode
 * @param concurrency the container's workers
 * @param running whether the container was running (not stopped or paused locally)
 */
public record QueueListenerNode(UUID node, String host, long pid, String container, DeliveryMode mode,
        int concurrency, boolean running) {

    /** The listener a node reported with its container. */
    public static QueueListenerNode of(ClusterNode node, NodeContainer container) {
        return new QueueListenerNode(node.id(), node.host(), node.pid(), container.id(), container.mode(),
                container.concurrency(), container.running());
    }
}
