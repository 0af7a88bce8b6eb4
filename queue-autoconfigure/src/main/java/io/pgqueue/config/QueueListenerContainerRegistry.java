package io.pgqueue.config;

import java.time.Duration;
import java.util.Collection;
import java.util.List;

import io.pgqueue.listener.QueueListenerContainer;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Holds every listener container of the application. A {@link SmartLifecycle} in a late phase: containers
 * start after everything else and stop first. Starting also registers this node in the cluster and opens the
 * LISTEN connection; stopping removes the node after its containers gave back their unfinished jobs.
 */
public interface QueueListenerContainerRegistry extends SmartLifecycle {

    /** Start late, stop early (the phase Spring Kafka uses for its containers). */
    int PHASE = Integer.MAX_VALUE - 100;

    /**
     * Creates a container for the endpoint (and starts it when the registry runs and the container starts
     * automatically).
     * @throws IllegalStateException naming the method when its signature or settings are invalid, or when it
     * conflicts with another listener of the same queue
     */
    QueueListenerContainer register(ListenerEndpoint endpoint);

    /** The container with this id, or null. */
    @Nullable QueueListenerContainer getListenerContainer(String id);

    /** Every container, in the order they were registered. */
    Collection<QueueListenerContainer> getListenerContainers();

    /**
     * Time since this node's last successful heartbeat, or null when it does not run listeners. Older than
     * the node timeout, the node stops claiming: the cluster may consider it gone.
     */
    @Nullable Duration heartbeatAge();

    /** Whether this node's containers may claim (its heartbeat is younger than the node timeout). */
    boolean isNodeAlive();

    /**
     * The databases on which this node's heartbeat is older than the node timeout, so that it stopped claiming
     * there; empty while it may claim everywhere. One database: {@code "default"} or nothing.
     */
    default List<String> staleHeartbeats() {
        return (heartbeatAge() != null && !isNodeAlive()) ? List.of("default") : List.of();
    }

    @Override
    default int getPhase() {
        return PHASE;
    }
}
