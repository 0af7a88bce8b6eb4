package io.pgqueue.listener;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.pgqueue.store.ClaimedJob;
import io.pgqueue.store.NodeIdentity;
import io.pgqueue.store.NodeStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * This JVM as a member of the cluster: keeps its node row alive, renews the leases of the jobs its
 * containers are running (one statement per heartbeat for all of them), and rescues the jobs of nodes that
 * stopped heart-beating or whose leases expired. Rescue is safe to run on every node at once.
 */
public class NodeRuntime {

    private static final Log logger = LogFactory.getLog(NodeRuntime.class);

    private final NodeStore store;

    private final NodeIdentity identity;

    private final NodeSettings settings;

    /** The in-flight job ids of each LEASE container (a live view per container), read at every heartbeat. */
    private final Map<QueueListenerContainer, Collection<Long>> running = new ConcurrentHashMap<>();

    private volatile boolean heartbeatSuspended;

    private ScheduledExecutorService scheduler;

    public NodeRuntime(NodeStore store, NodeIdentity identity, NodeSettings settings) {
        this.store = store;
        this.identity = identity;
        this.settings = settings;
    }

    public NodeIdentity identity() {
        return identity;
    }

    public NodeSettings settings() {
        return settings;
    }

    /** Registers the node and starts heart-beating. */
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        heartbeat();
        scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
            Thread thread = new Thread(runnable, "pgqueue-node-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        long period = settings.heartbeatInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::beat, period, period, TimeUnit.MILLISECONDS);
    }

    /** Stops heart-beating and removes the node row; its jobs must have been finished or released. */
    public synchronized void stop() {
        if (scheduler == null) {
            return;
        }
        scheduler.shutdownNow();
        scheduler = null;
        try {
            store.unregister(identity.id());
        }
        catch (RuntimeException ex) {
            logger.warn("Could not remove node " + identity.id() + " from the node table: " + ex.getMessage());
        }
    }

    /** Renews the leases of a container's in-flight jobs (a live view of their ids) at every heartbeat. */
    void track(QueueListenerContainer container, Collection<Long> inFlightJobIds) {
        running.put(container, inFlightJobIds);
    }

    void untrack(QueueListenerContainer container) {
        running.remove(container);
    }

    boolean extendLease(ClaimedJob job, Duration duration) {
        return store.extendLease(identity.id(), job.id(), job.attempt(), duration.toMillis());
    }

    /** Gives back jobs that could not finish before shutdown. */
    int release(long[] jobIds) {
        return (jobIds.length == 0) ? 0 : store.release(identity.id(), jobIds);
    }

    /**
     * For tests of crash rescue: stops heartbeats and lease renewal while the node keeps running, as if it
     * had frozen.
     */
    public void suspendHeartbeat() {
        heartbeatSuspended = true;
    }

    /** Runs one heartbeat and one rescue pass now. */
    public void beat() {
        if (heartbeatSuspended) {
            return;
        }
        try {
            heartbeat();
            int rescued = store.rescue(settings.nodeTimeout().toMillis(), settings.defaultMaxAttempts());
            if (rescued > 0) {
                logger.info("Released " + rescued + " job(s) whose node stopped or whose lease expired");
            }
        }
        catch (RuntimeException ex) {
            logger.warn("pgqueue heartbeat failed (will retry): " + ex.getMessage());
        }
    }

    private void heartbeat() {
        long[] ids = running.values().stream().flatMap(Collection::stream).mapToLong(Long::longValue).toArray();
        store.heartbeat(identity, settings.leaseDuration().toMillis(), ids);
    }
}
