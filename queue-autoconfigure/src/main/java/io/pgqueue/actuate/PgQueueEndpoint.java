package io.pgqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import io.pgqueue.admin.AdminAction;
import io.pgqueue.admin.AdminAction.Target;
import io.pgqueue.admin.Masking;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.FairnessKeyInfo;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobStep;
import io.pgqueue.model.JobWait;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.model.NoSuchJobException;
import io.pgqueue.model.NodeContainer;
import io.pgqueue.model.QueueListenerNode;
import io.pgqueue.model.QueueStats;
import io.pgqueue.model.ScheduleInfo;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.convert.DurationStyle;

/**
 * {@code /actuator/pgqueue}: every queue's counts, lag and pause state, this node's containers, the cluster's
 * nodes, the recurring jobs and the schema version; one queue with a page of its dead jobs and a keyset page
 * of its jobs; one job ({@code /{queue}/{jobId}}); and the write operations of the
 * {@link io.pgqueue.admin.AdminAction} catalogue: pause, resume, retry, purge (also spelt retry-dead and
 * purge-dead) and cancel on a queue, and pause, resume, trigger, reschedule and remove on a recurring job
 * ({@code /schedules/{name}}). Read-only unless {@code management.endpoint.pgqueue.access=unrestricted};
 * dead jobs' payloads and errors are masked unless {@code management.endpoint.pgqueue.show-values} shows
 * them (as Boot's {@code env} endpoint does with its values).
 */
@Endpoint(id = "pgqueue", defaultAccess = Access.READ_ONLY)
public class PgQueueEndpoint {

    /** What a masked value reads as. */
    static final String MASK = Masking.MASK;


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

    /** The fairness keys a queue's detail shows. */
    private static final int FAIRNESS_KEYS_SHOWN = 50;

    @ReadOperation
    public QueuesDescriptor queues() {
        List<QueueDescriptor> queues = admin.queues().stream().map(this::describe).toList();
        List<NodeDescriptor> nodes = admin.nodes().stream().map(NodeDescriptor::of).toList();
        List<ScheduleDescriptor> schedules = admin.schedules().stream().map(ScheduleDescriptor::of).toList();
        return new QueuesDescriptor(queues, nodes, schedules, admin.schemaVersion());
    }

    /**
     * One queue with a page of its dead jobs and a page of its jobs, newest first: those in {@code state} (a
     * comma-separated list; default every live state), filtered by {@code groupKey}, {@code dedupKey},
     * {@code header} ({@code name:value}), {@code enqueuedAfter}/{@code enqueuedBefore} (ISO-8601 instants),
     * {@code limit} per page, from the cursor {@code before} (the previous page's {@code nextCursor}).
     */
    @ReadOperation
    public @Nullable QueueDetailDescriptor queue(SecurityContext securityContext, @Selector String queue,
            @Nullable Integer deadOffset, @Nullable Integer deadLimit, @Nullable String state, @Nullable String groupKey,
            @Nullable String dedupKey, @Nullable String header, @Nullable String enqueuedAfter,
            @Nullable String enqueuedBefore, @Nullable Integer limit, @Nullable Long before) {
        // a bad queue name or page size is the request's fault: 400, not 500
        QueueStats stats = request(() -> admin.queue(queue)).orElse(null);
        if (stats == null) {
            return null;
        }
        int offset = (deadOffset != null) ? deadOffset : 0;
        int deadPage = (deadLimit != null) ? deadLimit : 20;
        boolean show = showValues.isShown(securityContext, roles);
        List<DeadJobDescriptor> deadJobs = request(() -> admin.deadJobs(queue, offset, deadPage, show))
            .stream()
            .map((job) -> DeadJobDescriptor.of(job, show))
            .toList();
        JobQuery query = request(() -> query(queue, state, groupKey, dedupKey, header, enqueuedAfter, enqueuedBefore,
                (limit != null) ? limit : 20, before));
        // masked, a page shows no payload, output or error: it does not read them
        JobPage page = admin.jobs(show ? query : query.toBuilder().withoutContent().build());
        return new QueueDetailDescriptor(describe(stats), deadJobs, offset, deadPage,
                // a page lists jobs; their steps and waits are on each job's own page
                page.jobs().stream().map((job) -> JobDescriptor.of(job, show, List.of(), null)).toList(),
                page.nextCursor(),
                admin.fairnessKeys(queue, FAIRNESS_KEYS_SHOWN).stream()
                    .map((key) -> show ? key : key.masked())
                    .toList());
    }

    /** One job of the queue, live or (while the history keeps it) finished. */
    @ReadOperation
    public @Nullable JobDescriptor job(SecurityContext securityContext, @Selector String queue, @Selector long jobId) {
        try {
            JobInfo job = admin.job(jobId);
            boolean show = showValues.isShown(securityContext, roles);
            return job.queue().equals(queue)
                    ? JobDescriptor.of(job, show, admin.steps(jobId, show), admin.waitOf(jobId).orElse(null)) : null;
        }
        catch (NoSuchJobException ex) {
            return null;
        }
    }

    /**
     * Operates a recurring job: {@code POST /actuator/pgqueue/schedules/{name}} with {@code action} one of
     * {@code pause}, {@code resume}, {@code trigger}, {@code reschedule} (with {@code cron} or {@code fixedRate},
     * e.g. {@code 10m}) or {@code remove}. Or emits an event for the jobs that await its key:
     * {@code POST /actuator/pgqueue/events/{key}} with {@code action=emit} and the payload as JSON text in
     * {@code payload} (optional); the affected count is 1 when this emit was the key's first.
     */
    @WriteOperation
    public WebEndpointResponse<OperationResult> operateSchedule(SecurityContext securityContext,
            @Selector String scope, @Selector String name, String action, @Nullable String cron,
            @Nullable String fixedRate, @Nullable String payload) {
        if ("events".equals(scope)) {
            return operation(securityContext, "event " + name, action, () -> {
                if (!"emit".equalsIgnoreCase(action)) {
                    throw new IllegalArgumentException("Unknown action '" + action + "' on an event: use emit");
                }
                return new OperationResult(name, "emit", admin.emit(name, payload) ? 1 : 0);
            });
        }
        if (!"schedules".equals(scope)) {
            return refused(name, action, "Unknown scope '" + scope + "': use /schedules/{name} or /events/{key}");
        }
        return operation(securityContext, "schedule " + name, action, () -> {
            AdminAction asked = AdminAction.of(Target.SCHEDULE, action);
            return new OperationResult(name, asked.verb(), asked.onSchedule(admin, name, cron,
                    (fixedRate != null) ? DurationStyle.detectAndParse(fixedRate) : null));
        });
    }

    /**
     * Operates one fairness key of a fair queue: {@code POST /actuator/pgqueue/{queue}/keys/{key}} with
     * {@code action} one of {@code pause}, {@code resume}, {@code weight} (with {@code weight}, a number above
     * zero) or {@code clear-weight}.
     */
    @WriteOperation
    public WebEndpointResponse<OperationResult> operateKey(SecurityContext securityContext, @Selector String queue,
            @Selector String scope, @Selector String key, String action, @Nullable Double weight) {
        String target = "queue " + queue + " key " + key;
        if (!"keys".equals(scope)) {
            return refused(target, action, "Unknown scope '" + scope + "': use /{queue}/keys/{key}");
        }
        return operation(securityContext, target, action, () -> {
            AdminAction asked = AdminAction.of(Target.FAIRNESS_KEY, action);
            asked.onKey(admin, queue, key, weight);
            return new OperationResult(queue, asked.verb(), 1);
        });
    }

    private static JobQuery query(String queue, @Nullable String state, @Nullable String groupKey,
            @Nullable String dedupKey, @Nullable String header, @Nullable String enqueuedAfter,
            @Nullable String enqueuedBefore, int limit, @Nullable Long before) {
        Map<String, String> parameters = new java.util.HashMap<>();
        parameters.put("state", state);
        parameters.put("groupKey", groupKey);
        parameters.put("dedupKey", dedupKey);
        parameters.put("header", header);
        parameters.put("enqueuedAfter", enqueuedAfter);
        parameters.put("enqueuedBefore", enqueuedBefore);
        parameters.put("limit", Integer.toString(limit));
        parameters.put("before", (before != null) ? before.toString() : null);
        return JobQuery.fromParameters(queue, parameters);
    }

    /** Runs a write operation; what it refuses is a 400 response whose body says why. */
    /**
     * Runs a write operation, logged with its user (as the dashboard logs its actions); what it refuses is a
     * 400 response, logged too.
     */
    private static WebEndpointResponse<OperationResult> operation(SecurityContext securityContext, String target,
            String action, java.util.function.Supplier<OperationResult> work) {
        String user = (securityContext.getPrincipal() != null) ? securityContext.getPrincipal().getName() : "anonymous";
        try {
            OperationResult result = work.get();
            AdminAction.audit("endpoint", user, action, target, result.affected());
            return new WebEndpointResponse<>(result);
        }
        catch (IllegalArgumentException | IllegalStateException | java.time.format.DateTimeParseException ex) {
            AdminAction.refused("endpoint", user, action, target, ex.getMessage());
            return refused(target, action, ex.getMessage());
        }
    }

    private static WebEndpointResponse<OperationResult> refused(String target, String action, String why) {
        return new WebEndpointResponse<>(new OperationResult(target, action, 0, why),
                WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    /** Runs a read's work, turning what it refuses into a 400 response. */
    private static <T> T request(java.util.function.Supplier<T> work) {
        try {
            return work.get();
        }
        catch (IllegalArgumentException | IllegalStateException | java.time.format.DateTimeParseException ex) {
            throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
        }
    }

    /**
     * Runs an operation on a queue: {@code pause}, {@code resume}, {@code retry}, {@code purge} (also spelt
     * {@code retry-dead}, {@code purge-dead}; these two on one job when {@code jobId} is given, else, with
     * {@code all=true}, on all dead jobs of the queue) or {@code cancel} (one job when {@code jobId} is given, else every scheduled, ready and running
     * job matching the filters {@code groupKey}, {@code dedupKey} and {@code header}, within {@code state};
     * without one of those filters only with {@code all=true}). A request that names neither a job, a filter
     * nor {@code all} is refused: a misspelt {@code jobId} must not act on the whole queue.
     */
    @WriteOperation
    public WebEndpointResponse<OperationResult> operate(SecurityContext securityContext, @Selector String queue,
            String action, @Nullable Long jobId, @Nullable String state, @Nullable String groupKey,
            @Nullable String dedupKey, @Nullable String header, @Nullable Boolean all) {
        String target = "queue " + queue + ((jobId != null) ? " job " + jobId : "");
        String asked = action.toLowerCase(Locale.ROOT);
        return operation(securityContext, target, action, () -> switch (AdminAction.of(Target.QUEUE, action)) {
            case CANCEL -> {
                notBlank("state", state);
                notBlank("groupKey", groupKey);
                notBlank("dedupKey", dedupKey);
                notBlank("header", header);
                if (jobId == null && groupKey == null && dedupKey == null && header == null) {
                    wholeQueue(all, "cancel", "groupKey, dedupKey or header");
                }
                if (jobId != null) {
                    AdminAction.Outcome outcome = AdminAction.CANCEL.onJob(admin, queue, jobId);
                    yield new OperationResult(queue, outcome.result(), outcome.affected());
                }
                BulkCancelResult result = admin.cancel(
                        query(queue, state, groupKey, dedupKey, header, null, null, JobQuery.MAX_LIMIT, null));
                yield new OperationResult(queue, "cancel", result.cancelled() + result.cancelRequested());
            }
            case PAUSE, RESUME -> {
                AdminAction.of(Target.QUEUE, action).onQueue(admin, queue);
                yield new OperationResult(queue, asked, 1);
            }
            case RETRY -> new OperationResult(queue, asked,
                    (jobId != null) ? AdminAction.RETRY.onJob(admin, queue, jobId).affected()
                            : wholeQueue(all, asked, null) ? admin.retryAllDead(queue) : 0);
            case PURGE -> new OperationResult(queue, asked,
                    (jobId != null) ? AdminAction.PURGE.onJob(admin, queue, jobId).affected()
                            : wholeQueue(all, asked, null) ? admin.purgeDead(queue) : 0);
            case WAKE -> {
                if (jobId == null) {
                    throw new IllegalArgumentException("wake names no job: give jobId");
                }
                yield new OperationResult(queue, asked, AdminAction.WAKE.onJob(admin, queue, jobId).affected());
            }
            default -> throw new IllegalStateException("Not a queue action: " + action);
        });
    }

    private static void notBlank(String name, @Nullable String value) {
        if (value != null && value.isBlank()) {
            throw new IllegalArgumentException(name + " is blank: leave it out, or give a value");
        }
    }

    /** Refuses an action on every job of a queue that did not say {@code all=true}; true when it did. */
    private static boolean wholeQueue(@Nullable Boolean all, String action, @Nullable String filters) {
        if (!Boolean.TRUE.equals(all)) {
            throw new IllegalArgumentException(action + " names no job: give jobId" + ((filters != null) ? ", " + filters : "")
                    + ", or all=true to act on every matching job of the queue");
        }
        return true;
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
                (stats.lag() != null) ? stats.lag().toNanos() / 1e9 : null, stats.paused(), containers,
                stats.listeners().stream().map(ListenerDescriptor::of).toList(), stats.unattended(Duration.ZERO));
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
     * @param paused whether it was paused at run time
     * @param overridden whether its cron or rate was changed at run time
     */
    public record ScheduleDescriptor(String name, String queue, @Nullable String cron, @Nullable Long fixedRateMillis,
            String zone, String missed, Instant nextRunAt, @Nullable Instant lastRunAt, boolean paused,
            boolean overridden) {

        static ScheduleDescriptor of(ScheduleInfo schedule) {
            return new ScheduleDescriptor(schedule.name(), schedule.queue(), schedule.cron(),
                    (schedule.fixedRate() != null) ? schedule.fixedRate().toMillis() : null, schedule.zone().getId(),
                    schedule.missed().name(), schedule.nextRunAt(), schedule.lastRunAt(), schedule.paused(),
                    schedule.overridden());
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
     * @param listeners every node's containers of the queue, as their last heartbeats said
     * @param unattended whether ready jobs wait while no node listens to the queue (and it is not paused): is its
     * listener a Spring bean, and does an application run it?
     */
    public record QueueDescriptor(String name, Map<String, Long> jobs, Map<String, Long> totals,
            @Nullable Double lagSeconds, boolean paused, List<ContainerDescriptor> containers,
            List<ListenerDescriptor> listeners, boolean unattended) {
    }

    /**
     * A node listening to a queue.
     *
     * @param node the node's id
     * @param host its host
     * @param pid its process id
     * @param container the container's id
     * @param mode the container's delivery mode
     * @param concurrency the container's workers
     * @param running whether the container was running
     */
    public record ListenerDescriptor(UUID node, String host, long pid, String container, String mode,
            int concurrency, boolean running) {

        static ListenerDescriptor of(QueueListenerNode listener) {
            return new ListenerDescriptor(listener.node(), listener.host(), listener.pid(), listener.container(),
                    listener.mode().name(), listener.concurrency(), listener.running());
        }
    }

    /**
     * One queue with a page of dead jobs.
     *
     * @param queue the queue
     * @param deadJobs dead jobs, newest first
     * @param deadOffset the page's offset
     * @param deadLimit the page's size
     * @param jobs a page of its jobs, newest first
     * @param nextCursor where the next page starts, or null
     * @param fairnessKeys the keys of a fair queue (active ones first, at most 50), empty for others
     */
    public record QueueDetailDescriptor(QueueDescriptor queue, List<DeadJobDescriptor> deadJobs, int deadOffset,
            int deadLimit, List<JobDescriptor> jobs, @Nullable Long nextCursor,
            List<FairnessKeyInfo> fairnessKeys) implements OperationResponseBody {
    }

    /**
     * A job; payload, error and output are masked unless shown on purpose.
     *
     * @param id job id
     * @param queue queue name
     * @param state its state
     * @param attempts attempts made
     * @param maxAttempts attempts allowed, or null until its first claim
     * @param priority its priority
     * @param runAt when it may run
     * @param enqueuedAt when it was sent
     * @param attemptedAt when its last attempt was claimed, or null
     * @param finishedAt when it finished, or null
     * @param headers its headers
     * @param groupKey its group key, or null
     * @param dedupKey its dedup key, or null
     * @param lockedBy the node running it, or null
     * @param cancelRequested whether its cancellation was requested while it runs
     * @param progressPercent reported progress, or null
     * @param progressMessage reported progress message, or null
     * @param payload payload as JSON text, or the mask
     * @param payloadType Java type recorded at send
     * @param lastError its last error, or the mask
     * @param output its output as JSON text, or the mask
     */
    public record JobDescriptor(long id, String queue, String state, int attempts, @Nullable Integer maxAttempts,
            int priority, Instant runAt, Instant enqueuedAt, @Nullable Instant attemptedAt, @Nullable Instant finishedAt,
            Map<String, String> headers, @Nullable String groupKey, @Nullable String dedupKey, @Nullable UUID lockedBy,
            boolean cancelRequested, @Nullable Integer progressPercent, @Nullable String progressMessage,
            @Nullable String payload, @Nullable String payloadType, @Nullable String lastError,
            @Nullable String output, List<JobStep> steps, @Nullable JobWait waitingFor) implements OperationResponseBody {

        /**
         * @param steps its durable steps (their results already hidden unless shown)
         * @param waitingFor what it waits for when parked, else null
         */
        static JobDescriptor of(JobInfo job, boolean show, List<JobStep> steps, @Nullable JobWait waitingFor) {
            return new JobDescriptor(job.id(), job.queue(), job.state().value(), job.attempts(), job.maxAttempts(),
                    job.priority(), job.runAt(), job.enqueuedAt(), job.attemptedAt(), job.finishedAt(),
                    Masking.maskValues(job.headers(), show), Masking.mask(job.groupKey(), show),
                    Masking.mask(job.dedupKey(), show), job.lockedBy(), job.cancelRequested(),
                    (job.progress() != null) ? job.progress().percent() : null,
                    (job.progress() != null) ? Masking.mask(job.progress().message(), show) : null,
                    show ? job.payload() : MASK, job.payloadType(), Masking.mask(job.lastError(), show),
                    Masking.mask(job.output(), show), steps,
                    (waitingFor != null && !show && waitingFor.eventKey() != null)
                            ? new JobWait(waitingFor.kind(), MASK, waitingFor.awaitedJobId(), waitingFor.until(),
                                    waitingFor.since())
                            : waitingFor);
        }
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
     * @param containers its containers with their in-flight jobs at that heartbeat
     */
    public record NodeDescriptor(UUID id, String host, long pid, Instant startedAt, Instant heartbeatAt,
            List<NodeContainer> containers) {

        static NodeDescriptor of(ClusterNode node) {
            return new NodeDescriptor(node.id(), node.host(), node.pid(), node.startedAt(), node.heartbeatAt(),
                    node.containers());
        }
    }

    /**
     * What a write operation did.
     *
     * @param queue the queue (or recurring job)
     * @param action the action
     * @param affected how many jobs (or 1 for pause/resume)
     * @param error why the operation was refused, or null
     */
    public record OperationResult(String queue, String action, long affected, @Nullable String error)
            implements OperationResponseBody {

        OperationResult(String queue, String action, long affected) {
            this(queue, action, affected, null);
        }
    }
}
