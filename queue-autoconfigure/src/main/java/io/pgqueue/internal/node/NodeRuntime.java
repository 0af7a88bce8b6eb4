package io.pgqueue.internal.node;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.pgqueue.internal.lifecycle.JobRepository;
import io.pgqueue.internal.lifecycle.NodeRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * This JVM as a member of the cluster: keeps its node row alive, renews the leases of the jobs its
 * containers are running (one statement per heartbeat for all of them), and rescues the jobs of nodes that
 * stopped heart-beating or whose leases expired. Rescue is safe to run on every node at once.
 */
public class NodeRuntime {

    private static final Log logger = LogFactory.getLog(NodeRuntime.class);

    private final NodeRepository nodes;

    private final JobRepository jobs;

    private final NodeIdentity identity;

    private final NodeSettings settings;

    /** The in-flight job ids of each LEASE container (a live view per container), read at every heartbeat. */
    private final Map<Object, Collection<Long>> running = new ConcurrentHashMap<>();

    private ScheduledExecutorService scheduler;

    public NodeRuntime(NodeRepository nodes, JobRepository jobs, NodeIdentity identity, NodeSettings settings) {
        this.nodes = nodes;
        this.jobs = jobs;
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
            nodes.unregister(identity.id());
        }
        catch (RuntimeException ex) {
            logger.warn("Could not remove node " + identity.id() + " from the node table: " + ex.getMessage());
        }
    }

    /** Renews the leases of a container's in-flight jobs (a live view of their ids) at every heartbeat. */
    public void track(Object container, Collection<Long> inFlightJobIds) {
        running.put(container, inFlightJobIds);
    }

    public void untrack(Object container) {
        running.remove(container);
    }

    /** Extends a job's lease, if this node still owns it in that attempt. */
    public boolean extendLease(long jobId, int attempt, Duration duration) {
        return jobs.extendLease(identity.id(), jobId, attempt, duration);
    }

    /** Gives back jobs that could not finish before shutdown. */
    public int release(long[] jobIds) {
        return jobs.release(identity.id(), jobIds);
    }

    /** One heartbeat and one rescue pass. */
    private void beat() {
        try {
            heartbeat();
            int rescued = jobs.rescue(settings.nodeTimeout());
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
        nodes.heartbeat(identity.id(), identity.host(), identity.pid(), settings.leaseDuration(), ids);
    }
}
