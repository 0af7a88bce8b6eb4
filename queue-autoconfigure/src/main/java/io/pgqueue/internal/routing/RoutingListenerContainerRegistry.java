package io.pgqueue.internal.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import io.pgqueue.config.ContainerOptionsResolver;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.support.AllAtOnce;
import org.jspecify.annotations.Nullable;

/**
 * The application's listener registry when queues live in several databases: a listener's container is made
 * by the registry of its queue's database, which claims there, with that database's node membership, wake-ups
 * and transaction manager. Starting and stopping reach every database's registry; a database that is down
 * holds back only its own containers, which keep retrying while the others run.
 */
public final class RoutingListenerContainerRegistry implements QueueListenerContainerRegistry {

    private final DatabaseRouter<QueueListenerContainerRegistry> router;

    private final ContainerOptionsResolver optionsResolver;

    private volatile boolean running;

    public RoutingListenerContainerRegistry(DatabaseRouter<QueueListenerContainerRegistry> router, ContainerOptionsResolver optionsResolver) {
        this.router = router;
        this.optionsResolver = optionsResolver;
    }

    @Override
    public synchronized QueueListenerContainer register(ListenerEndpoint endpoint) {
        ContainerOptions options = optionsResolver.resolve(endpoint);
        DatabaseUnit<QueueListenerContainerRegistry> unit = router.forQueue(options.queue());
        for (DatabaseUnit<QueueListenerContainerRegistry> other : router.units()) {
            QueueListenerContainer taken = (other != unit) ? other.service().getListenerContainer(options.id()) : null;
            if (taken != null) {
                throw new IllegalStateException("@QueueListener method " + endpoint.method().getDeclaringClass().getSimpleName() + "." + endpoint.method().getName() + " uses container id '"
                        + options.id() + "', already used by a listener of queue '" + taken.queue() + "' in " + other);
            }
        }
        return unit.service().register(endpoint);
    }

    @Override
    public @Nullable QueueListenerContainer getListenerContainer(String id) {
        return router.units().stream()
            .map((unit) -> unit.service().getListenerContainer(id))
            .filter(Objects::nonNull)
            .findFirst()
            .orElse(null);
    }

    @Override
    public Collection<QueueListenerContainer> getListenerContainers() {
        List<QueueListenerContainer> containers = new ArrayList<>();
        router.units().forEach((unit) -> containers.addAll(unit.service().getListenerContainers()));
        return containers;
    }

    /** The oldest heartbeat among the databases this node runs listeners on. */
    @Override
    public @Nullable Duration heartbeatAge() {
        return router.units().stream()
            .map((unit) -> unit.service().heartbeatAge())
            .filter(Objects::nonNull)
            .max(Duration::compareTo)
            .orElse(null);
    }

    /** Whether this node may claim on every database it runs listeners on. */
    @Override
    public boolean isNodeAlive() {
        return router.units().stream()
            .filter((unit) -> unit.service().heartbeatAge() != null)
            .allMatch((unit) -> unit.service().isNodeAlive());
    }

    @Override
    public List<String> staleHeartbeats() {
        return router.units().stream()
            .filter((unit) -> unit.service().heartbeatAge() != null && !unit.service().isNodeAlive())
            .map((unit) -> unit.name())
            .toList();
    }

    @Override
    public synchronized void start() {
        running = true;
        router.units().forEach((unit) -> unit.service().start());
    }

    /** Stops every database's registry at once, so that the shutdown timeout is paid once. */
    @Override
    public synchronized void stop() {
        running = false;
        java.util.Map<String, Runnable> stops = new java.util.LinkedHashMap<>();
        router.units().forEach((unit) -> stops.put("pgqueue-stop-" + unit.name(), unit.service()::stop));
        AllAtOnce.run(stops);
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
