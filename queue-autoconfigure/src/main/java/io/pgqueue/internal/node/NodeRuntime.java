package io.pgqueue.internal.node;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.pgqueue.internal.persistence.JobEnginePort;
import io.pgqueue.internal.persistence.NodeRepository;
import io.pgqueue.internal.persistence.ProgressReport;
import io.pgqueue.model.NodeContainer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * This JVM as a member of the cluster: keeps its node row alive, renews the leases of the jobs its
 * containers are running (one statement per heartbeat for all of them), and rescues the jobs of nodes that
 * stopped heart-beating or whose leases expired. Rescue is safe to run on every node at once.
 */
public class NodeRuntime {

    private static final Log logger = LogFactory.getLog(NodeRuntime.class);

    private final NodeRepository nodes;

    private final JobEnginePort jobs;

    private final NodeIdentity identity;

    private final NodeSettings settings;

    /** The in-flight jobs of each LEASE container, read at every heartbeat. */
    private final Map<Object, TrackedJobs> running = new ConcurrentHashMap<>();

    /** What this node runs, written with the heartbeats when it changed. */
    private volatile Supplier<List<NodeContainer>> containers = List::of;

    /** Heartbeats between two writes of containers that changed only in their in-flight counts. */
    private static final int CONTAINERS_REWRITE_EVERY = 6;

    /** The containers the last heartbeat that wrote them wrote (heartbeat thread only). */
    private List<NodeContainer> writtenContainers;

    private int beatsSinceContainersWritten;

    private ScheduledExecutorService scheduler;

    /** When the current run of successful heartbeats began (System.nanoTime), or -1 after a failure. */
    private volatile long aliveSince = -1;

    /** When the last heartbeat succeeded (System.nanoTime), or -1 before the first. */
    private volatile long lastHeartbeat = -1;

    public NodeRuntime(NodeRepository nodes, JobEnginePort jobs, NodeIdentity identity, NodeSettings settings) {
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

    /**
     * Stops heart-beating and removes the node row, once its containers finished or released their jobs. If
     * a handler is still running (it ignored its interruption), the row stays: the job is rescued when its
     * lease and this node's heartbeat have expired, not at once.
     */
    public synchronized void stop() {
        if (scheduler == null) {
            return;
        }
        scheduler.shutdownNow();
        try {
            // a heartbeat in flight would register the node again right after it is removed
            scheduler.awaitTermination(settings.heartbeatTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        scheduler = null;
        if (running.values().stream().anyMatch((jobs) -> !jobs.ids().isEmpty())) {
            logger.warn("Node " + identity.id() + " stops with handlers still running; it stays registered until "
                    + "its heartbeat expires, so that their jobs are not handed out while they run");
            return;
        }
        try {
            nodes.unregister(identity.id());
        }
        catch (RuntimeException ex) {
            logger.warn("Could not remove node " + identity.id() + " from the node table: " + ex.getMessage());
        }
    }

    /**
     * Renews the leases of a container's in-flight jobs at every heartbeat, passes on the cancellations
     * requested for them and writes their progress.
     */
    public void track(Object container, TrackedJobs jobs) {
        running.put(container, jobs);
    }

    /** Where the heartbeat reads this node's containers from, to record them for operators. */
    public void describeContainers(Supplier<List<NodeContainer>> containers) {
        this.containers = containers;
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

    /**
     * Whether this node may claim jobs: its last heartbeat is younger than the node timeout. A node whose
     * heartbeat stalled (a starved pool, a half-open socket, a dead thread) looks gone to the others, who
     * will rescue what it holds; it must not take more.
     */
    public boolean mayClaim() {
        long last = lastHeartbeat;
        return last >= 0 && System.nanoTime() - last < settings.nodeTimeout().toNanos();
    }

    /** Time since the last successful heartbeat, or null before the first. */
    public Duration heartbeatAge() {
        long last = lastHeartbeat;
        return (last < 0) ? null : Duration.ofNanos(System.nanoTime() - last);
    }

    /**
     * One heartbeat and, once this node has been alive without a break for a full node timeout, one rescue
     * pass. A node that has just reconnected after an outage or a stall (a lock on the node table, commits
     * waiting for a standby, a starved pool) cannot judge the others by heartbeats they could not write
     * during it: it gives them a node timeout to beat again (and renew their leases) first. A heartbeat
     * slower than {@link NodeSettings#heartbeatTimeout()} is such a stall, even when it succeeded.
     */
    private void beat() {
        try {
            heartbeat();
            long since = aliveSince;
            if (since >= 0 && System.nanoTime() - since >= settings.nodeTimeout().toNanos()) {
                int rescued = jobs.rescue(settings.nodeTimeout());
                if (rescued > 0) {
                    logger.info("Released " + rescued + " job(s) whose node stopped or whose lease expired");
                }
            }
        }
        catch (Throwable ex) {
            // nothing may end the heartbeat schedule: an exception escaping it would stop it silently
            aliveSince = -1;
            logger.warn("pgqueue heartbeat failed (will retry): " + ex, (ex instanceof Error) ? ex : null);
        }
    }

    private void heartbeat() {
        long[] ids = running.values().stream().map(TrackedJobs::ids).flatMap(Collection::stream)
            .mapToLong(Long::longValue).toArray();
        List<NodeContainer> described = containers.get();
        // the containers only when they changed (at 500 containers ~75 KB a heartbeat), and now and then anyway:
        // for their in-flight counts, and for a row that a rescue removed and this heartbeat registers again
        List<NodeContainer> shape = described.stream().map(NodeRuntime::withoutInFlight).toList();
        boolean write = !shape.equals(writtenContainers) || ++beatsSinceContainersWritten >= CONTAINERS_REWRITE_EVERY;
        long start = System.nanoTime();
        List<Long> cancelled = nodes.heartbeat(identity.id(), identity.host(), identity.pid(), settings.leaseDuration(),
                ids, write ? described : null, settings.heartbeatTimeout());
        if (write) {
            writtenContainers = shape;
            beatsSinceContainersWritten = 0;
        }
        long now = System.nanoTime();
        if (now - start > settings.heartbeatTimeout().toNanos()) {
            // the row is fresh (dated when the statement got its locks), so this node may go on claiming; but
            // the beat proves nothing about the time it waited, so no judging of others until beats are prompt
            // again for a whole node timeout
            aliveSince = -1;
            logger.info("pgqueue heartbeat took " + (now - start) / 1_000_000 + " ms, longer than its bound of "
                    + settings.heartbeatTimeout().toMillis() + " ms: this node rescues nothing until it has beaten "
                    + "promptly for a node timeout");
        }
        else if (aliveSince < 0) {
            aliveSince = now;
        }
        lastHeartbeat = now;
        passOn(cancelled);
        try {
            writeProgress();
        }
        catch (RuntimeException ex) {
            // progress is a courtesy to operators: its write failing says nothing about this node's liveness
            logger.warn("Could not record the progress of this node's jobs: " + ex.getMessage());
        }
    }

    /** Stops the handlers of these jobs, those of them this node runs. */
    private void passOn(List<Long> cancelled) {
        for (Long jobId : cancelled) {
            running.values().stream().filter((jobs) -> jobs.ids().contains(jobId))
                .forEach((jobs) -> jobs.cancellationRequested(jobId));
        }
    }

    /**
     * A cancellation was announced (by NOTIFY or in-process) for a job, or for several when null: if this node
     * runs such jobs, their rows are read at once, off the announcing thread, and those whose cancellation
     * is really requested are stopped without waiting for the next heartbeat.
     */
    public void cancellationAnnounced(@Nullable Long jobId) {
        ScheduledExecutorService executor = scheduler;
        long[] candidates = running.values().stream().map(TrackedJobs::ids).flatMap(Collection::stream)
            .filter((id) -> jobId == null || id.equals(jobId)).mapToLong(Long::longValue).toArray();
        if (executor == null || candidates.length == 0) {
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    passOn(jobs.cancelRequested(identity.id(), candidates));
                }
                catch (RuntimeException ex) {
                    logger.debug("Could not read announced cancellations (the next heartbeat passes them on): " + ex);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            // stopping: the jobs are released or finished anyway
        }
    }

    private static NodeContainer withoutInFlight(NodeContainer container) {
        return new NodeContainer(container.id(), container.queue(), container.mode(), container.concurrency(),
                container.batchSize(), 0, container.running());
    }

    /** One statement for the progress every handler of this node reported since the last heartbeat. */
    private void writeProgress() {
        List<ProgressReport> reports = new ArrayList<>();
        running.values().forEach((jobs) -> reports.addAll(jobs.takeProgress()));
        jobs.progress(identity.id(), reports);
    }
}
