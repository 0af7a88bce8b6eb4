package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.config.ContainerOptionsResolver;
import io.pgqueue.config.ListenerEndpoint;
import io.pgqueue.config.QueueListenerContainerFactory;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.support.AllAtOnce;
import io.pgqueue.listener.adapter.MethodJobHandler;
import io.pgqueue.model.NodeContainer;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Holds every listener container of the application. A {@link SmartLifecycle} in a late phase: containers
 * start after everything else and stop first. Starting also registers this node and opens the LISTEN
 * connection; stopping removes the node after its containers gave back their unfinished jobs.
 */
public class DefaultListenerContainerRegistry implements QueueListenerContainerRegistry {

    private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
        .getLog(DefaultListenerContainerRegistry.class);

    private @Nullable String database;

    /** The pool's size, or 0 when unknown. */
    private int poolSize;


    private final QueueListenerContainerFactory factory;

    private final ContainerOptionsResolver optionsResolver;

    private final JobPayloadCodec codec;

    private final NodeRuntime node;

    private final Wakeups wakeups;

    private final Map<String, QueueListenerContainer> containers = new ConcurrentHashMap<>();

    private final List<QueueListenerContainer> ordered = new CopyOnWriteArrayList<>();

    private final Map<String, String> methodByContainer = new ConcurrentHashMap<>();

    private volatile boolean running;

    public DefaultListenerContainerRegistry(QueueListenerContainerFactory factory, ContainerOptionsResolver optionsResolver,
            JobPayloadCodec codec, NodeRuntime node, Wakeups wakeups) {
        this.factory = factory;
        this.optionsResolver = optionsResolver;
        this.codec = codec;
        this.node = node;
        this.wakeups = wakeups;
        // jobs committed in this JVM and NOTIFYs from others wake the containers of their queue
        wakeups.addLocalListener(this::wakeUp, this::wakeUpAll);
        // a cancellation requested anywhere interrupts this node's handler at once, not at its next heartbeat
        wakeups.addCancelListener(node::cancellationAnnounced);
        node.describeContainers(this::describe);
    }

    /** This node's containers with their settings and in-flight jobs, as its heartbeat records them. */
    private List<NodeContainer> describe() {
        return ordered.stream()
            .map((container) -> new NodeContainer(container.id(), container.queue(), container.options().mode(),
                    container.options().concurrency(), container.options().batchSize(), container.inFlight(),
                    container.isRunning()))
            .toList();
    }

    /**
     * Creates a container for the endpoint.
     * @throws IllegalStateException naming the method when its signature or settings are invalid, or when it
     * conflicts with another listener of the same queue
     */
    @Override
    public synchronized QueueListenerContainer register(ListenerEndpoint endpoint) {
        MethodJobHandler handler = MethodJobHandler.create(endpoint.bean(), endpoint.method(), codec);
        ContainerOptions options = optionsResolver.resolve(endpoint);
        for (QueueListenerContainer other : ordered) {
            if (other.id().equals(options.id())) {
                throw new IllegalStateException("@QueueListener method " + handler.describe() + " uses container id '"
                        + options.id() + "', already used by " + methodByContainer.get(other.id()));
            }
            if (other.queue().equals(options.queue()) && !other.options().sameDeliveryAs(options)) {
                throw new IllegalStateException("@QueueListener methods " + methodByContainer.get(other.id()) + " and "
                        + handler.describe() + " both listen to queue '" + options.queue()
                        + "' with conflicting settings: " + other.options() + " vs " + options);
            }
        }
        QueueListenerContainer container = factory.create(options, handler);
        containers.put(container.id(), container);
        ordered.add(container);
        methodByContainer.put(container.id(), handler.describe());
        if (running) {
            // the first container registered after start: this node joins the cluster now
            joinCluster();
            if (options.autoStartup()) {
                container.start();
            }
        }
        return container;
    }

    @Override
    public @Nullable QueueListenerContainer getListenerContainer(String id) {
        return containers.get(id);
    }

    @Override
    public Collection<QueueListenerContainer> getListenerContainers() {
        return List.copyOf(ordered);
    }

    /** Wakes the containers of a queue (jobs were committed). */
    private void wakeUp(String queue) {
        for (QueueListenerContainer container : ordered) {
            if (container.queue().equals(queue)) {
                container.wakeUp();
            }
        }
    }

    private void wakeUpAll() {
        ordered.forEach(QueueListenerContainer::wakeUp);
    }

    /**
     * Time since this node's last successful heartbeat, or null when it does not run listeners. Older than
     * the node timeout, the node stops claiming: the cluster may consider it gone.
     */
    @Override
    public @Nullable Duration heartbeatAge() {
        return (running && !ordered.isEmpty()) ? node.heartbeatAge() : null;
    }

    /** Whether this node's containers may claim (its heartbeat is younger than the node timeout). */
    @Override
    public boolean isNodeAlive() {
        return node.mayClaim();
    }

    @Override
    public synchronized void start() {
        if (running) {
            // called by the application once the context runs (the lifecycle never starts a running bean): the
            // listeners kept back by auto-startup=false start now, as Spring Kafka's registry does
            ordered.stream().filter((container) -> !container.isRunning()).forEach(QueueListenerContainer::start);
            return;
        }
        running = true;
        logListeners();
        if (ordered.isEmpty()) {
            return;
        }
        joinCluster();
        for (QueueListenerContainer container : ordered) {
            if (container.options().autoStartup()) {
                container.start();
            }
        }
    }

    /**
     * One line at startup that says what this application consumes: each container's queue, mode, concurrency
     * and method, or that it has none (a listener on a class that is not a Spring bean is never found, and its
     * jobs would wait without a word).
     */
    private void logListeners() {
        String where = (database != null) ? " for the queues of database '" + database + "'" : "";
        if (ordered.isEmpty()) {
            logger.info("pgqueue found no @QueueListener methods" + where + ": this application sends such jobs but "
                    + "consumes none. A listener's class must be a Spring bean (e.g. annotated @Component) to be found");
            return;
        }
        List<String> described = new ArrayList<>();
        for (QueueListenerContainer container : ordered) {
            ContainerOptions options = container.options();
            described.add("'" + container.queue() + "' " + options.mode() + " x" + options.concurrency() + " "
                    + methodByContainer.get(container.id()) + (options.autoStartup() ? "" : " (not started: auto-startup=false)"));
        }
        logger.info("pgqueue listeners" + where + " (" + ordered.size() + "): " + String.join("; ", described));
        int needed = connectionsNeeded();
        if (poolSize > 0 && poolSize < needed) {
            logger.warn("The connection pool" + where + " holds at most " + poolSize + " connections, fewer than "
                    + "pgqueue's listeners use at full load (" + needed + ": 3 per LEASE container for its two pollers "
                    + "and its acknowledgements, one per TRANSACTIONAL worker, 3 for LISTEN, heartbeats and "
                    + "maintenance): their queues will wait for connections and drain slower. Raise "
                    + "spring.datasource.hikari.maximum-pool-size to at least " + needed
                    + " plus what the application uses itself");
        }
    }

    /** Connections the listeners use at full load: the pool-sizing formula of docs/production.md. */
    private int connectionsNeeded() {
        int needed = 3;
        for (QueueListenerContainer container : ordered) {
            ContainerOptions options = container.options();
            needed += (options.mode() == io.pgqueue.model.DeliveryMode.TRANSACTIONAL) ? options.concurrency() : 3;
        }
        return needed;
    }

    /** The most connections the pool of this registry's DataSource holds, when known: checked at startup. */
    public void setPoolSize(int poolSize) {
        this.poolSize = poolSize;
    }

    /** Names the database whose queues this registry serves, where several are configured (for its log line). */
    public void setDatabase(@Nullable String database) {
        this.database = database;
    }

    /** Registers this node and opens the LISTEN connection (both only once). */
    private void joinCluster() {
        node.start();
        wakeups.startListening();
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        // stop every container at once so the shutdown timeout is not paid once per container
        Map<String, Runnable> stops = new java.util.LinkedHashMap<>();
        ordered.forEach((container) -> stops.put("pgqueue-stop-" + container.id(), container::stop));
        AllAtOnce.run(stops);
        wakeups.stopListening();
        node.stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
