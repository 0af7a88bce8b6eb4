package io.pgqueue.actuate;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.admin.QueueStats;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.listener.QueueListenerContainerRegistry;
import io.pgqueue.JobState;
import io.pgqueue.admin.ClusterNode;
import io.pgqueue.admin.DeadJob;
import io.pgqueue.schedule.ScheduleInfo;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/pgqueue}: every queue's counts, lag and pause state, this node's containers, the cluster's
 * nodes and the schema version; one queue with a page of its dead jobs; and the write operations pause,
 * resume, retry-dead and purge-dead. Read-only unless {@code management.endpoint.pgqueue.access=unrestricted};
 * dead jobs' payloads and errors are masked unless {@code management.endpoint.pgqueue.show-values} shows
 * them (as Boot's {@code env} endpoint does with its values).
 */
@Endpoint(id = "pgqueue", defaultAccess = Access.READ_ONLY)
public class PgQueueEndpoint {

    /** What a masked value reads as. */
    static final String MASK = "******";

    private final QueueAdmin admin;

    private final @Nullable QueueListenerContainerRegistry registry;

    private final Show showValues;

    private final Set<String> roles;

    public PgQueueEndpoint(QueueAdmin admin, @Nullable QueueListenerContainerRegistry registry, Show showValues,
            Set<String> roles) {
        this.admin = admin;
        this.registry = registry;
        this.showValues = showValues;
        this.roles = Set.copyOf(roles);
    }

    @ReadOperation
    public QueuesDescriptor queues() {
        List<QueueDescriptor> queues = admin.queues().stream().map(this::describe).toList();
        List<NodeDescriptor> nodes = admin.nodes().stream().map(NodeDescriptor::of).toList();
        List<ScheduleDescriptor> schedules = admin.schedules().stream().map(ScheduleDescriptor::of).toList();
        return new QueuesDescriptor(queues, nodes, schedules, admin.schemaVersion());
    }

    @ReadOperation
    public @Nullable QueueDetailDescriptor queue(SecurityContext securityContext, @Selector String queue,
            @Nullable Integer deadOffset, @Nullable Integer deadLimit) {
        QueueStats stats = admin.queue(queue).orElse(null);
        if (stats == null) {
            return null;
        }
        int offset = (deadOffset != null) ? deadOffset : 0;
        int limit = (deadLimit != null) ? deadLimit : 20;
        boolean show = showValues.isShown(securityContext, roles);
        List<DeadJobDescriptor> deadJobs = admin.deadJobs(queue, offset, limit)
            .stream()
            .map((job) -> DeadJobDescriptor.of(job, show))
            .toList();
        return new QueueDetailDescriptor(describe(stats), deadJobs, offset, limit);
    }

    /**
     * Runs an operation on a queue: {@code pause}, {@code resume}, {@code retry-dead} or {@code purge-dead}
     * (the last two on one job when {@code jobId} is given, else on all dead jobs of the queue).
     */
    @WriteOperation
    public OperationResult operate(@Selector String queue, String action, @Nullable Long jobId) {
        return switch (action.toLowerCase(Locale.ROOT)) {
            case "pause" -> {
                admin.pause(queue);
                yield new OperationResult(queue, "pause", 1);
            }
            case "resume" -> {
                admin.resume(queue);
                yield new OperationResult(queue, "resume", 1);
            }
            case "retry-dead" -> new OperationResult(queue, "retry-dead",
                    (jobId != null) ? (admin.retryDead(queue, jobId) ? 1 : 0) : admin.retryAllDead(queue));
            case "purge-dead" -> new OperationResult(queue, "purge-dead",
                    (jobId != null) ? (admin.purgeDead(queue, jobId) ? 1 : 0) : admin.purgeDead(queue));
            default -> throw new IllegalArgumentException(
                    "Unknown action '" + action + "': use pause, resume, retry-dead or purge-dead");
        };
    }

    private QueueDescriptor describe(QueueStats stats) {
        List<ContainerDescriptor> containers = containers().stream()
            .filter((container) -> container.queue().equals(stats.queue()))
            .map(ContainerDescriptor::of)
            .toList();
        Map<String, Long> counts = JobState.live().stream()
            .collect(Collectors.toMap(JobState::value, (state) -> stats.counts().count(state), (a, b) -> a,
                    java.util.LinkedHashMap::new));
        Map<String, Long> totals = new java.util.LinkedHashMap<>();
        totals.put("enqueued", stats.counts().enqueued());
        totals.put("completed", stats.counts().completed());
        totals.put("failed", stats.counts().failed());
        totals.put("deadLettered", stats.counts().deadLettered());
        totals.put("cancelled", stats.counts().cancelled());
        return new QueueDescriptor(stats.queue(), counts, totals,
                (stats.lag() != null) ? stats.lag().toNanos() / 1e9 : null, stats.paused(), containers);
    }

    private Collection<QueueListenerContainer> containers() {
        return (registry != null) ? registry.getListenerContainers() : List.of();
    }

    /**
     * All queues.
     *
     * @param queues each queue
     * @param nodes the cluster's nodes
     * @param schedules the recurring jobs with their next and last tick
     * @param schemaVersion pgqueue's schema version, or null when not migrated by pgqueue
     */
    public record QueuesDescriptor(List<QueueDescriptor> queues, List<NodeDescriptor> nodes,
            List<ScheduleDescriptor> schedules, @Nullable String schemaVersion) implements OperationResponseBody {
    }

    /**
     * A recurring job.
     *
     * @param name schedule name
     * @param queue queue its jobs go to
     * @param cron cron expression, or null
     * @param fixedRateMillis period in milliseconds, or null
     * @param zone time zone of the cron expression
     * @param missed what happens to missed ticks
     * @param nextRunAt the next tick
     * @param lastRunAt the last tick fired, or null
     */
    public record ScheduleDescriptor(String name, String queue, @Nullable String cron, @Nullable Long fixedRateMillis,
            String zone, String missed, Instant nextRunAt, @Nullable Instant lastRunAt) {

        static ScheduleDescriptor of(ScheduleInfo schedule) {
            return new ScheduleDescriptor(schedule.name(), schedule.queue(), schedule.cron(),
                    (schedule.fixedRate() != null) ? schedule.fixedRate().toMillis() : null, schedule.zone().getId(),
                    schedule.missed().name(), schedule.nextRunAt(), schedule.lastRunAt());
        }
    }

    /**
     * One queue.
     *
     * @param name queue name
     * @param jobs jobs per state
     * @param totals monotonic totals
     * @param lagSeconds age of the oldest ready job, or null
     * @param paused whether the queue is paused cluster-wide
     * @param containers this node's containers of the queue
     */
    public record QueueDescriptor(String name, Map<String, Long> jobs, Map<String, Long> totals,
            @Nullable Double lagSeconds, boolean paused, List<ContainerDescriptor> containers) {
    }

    /**
     * One queue with a page of dead jobs.
     *
     * @param queue the queue
     * @param deadJobs dead jobs, newest first
     * @param deadOffset the page's offset
     * @param deadLimit the page's size
     */
    public record QueueDetailDescriptor(QueueDescriptor queue, List<DeadJobDescriptor> deadJobs, int deadOffset,
            int deadLimit) implements OperationResponseBody {
    }

    /**
     * A dead job; payload and error are masked unless shown on purpose.
     *
     * @param id job id
     * @param queue queue name
     * @param attempts attempts made
     * @param lastError why it is dead, or the mask
     * @param payload payload as JSON text, or the mask
     * @param payloadType Java type recorded at send
     * @param enqueuedAt when it was sent
     */
    public record DeadJobDescriptor(long id, String queue, int attempts, @Nullable String lastError, String payload,
            @Nullable String payloadType, Instant enqueuedAt) {

        static DeadJobDescriptor of(DeadJob job, boolean show) {
            return new DeadJobDescriptor(job.id(), job.queue(), job.attempts(), show ? job.lastError() : MASK,
                    show ? job.payload() : MASK, job.payloadType(), job.enqueuedAt());
        }
    }

    /**
     * A listener container of this node.
     *
     * @param id container id
     * @param mode delivery mode
     * @param concurrency handlers at once
     * @param batchSize jobs per claim
     * @param running whether it runs
     */
    public record ContainerDescriptor(String id, String mode, int concurrency, int batchSize, boolean running) {

        static ContainerDescriptor of(QueueListenerContainer container) {
            return new ContainerDescriptor(container.id(), container.options().mode().name(),
                    container.options().concurrency(), container.options().batchSize(), container.isRunning());
        }
    }

    /**
     * A node of the cluster.
     *
     * @param id node id
     * @param host host name
     * @param pid process id
     * @param startedAt when it registered
     * @param heartbeatAt its last heartbeat
     */
    public record NodeDescriptor(UUID id, String host, long pid, Instant startedAt, Instant heartbeatAt) {

        static NodeDescriptor of(ClusterNode node) {
            return new NodeDescriptor(node.id(), node.host(), node.pid(), node.startedAt(), node.heartbeatAt());
        }
    }

    /**
     * What a write operation did.
     *
     * @param queue the queue
     * @param action the action
     * @param affected how many jobs (or 1 for pause/resume)
     */
    public record OperationResult(String queue, String action, long affected) implements OperationResponseBody {
    }
}
