package io.pgqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.pgqueue.admin.AdminAction;
import io.pgqueue.admin.Masking;
import io.pgqueue.dashboard.ThroughputHistory.RatePoint;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.FairnessKeyInfo;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobStep;
import io.pgqueue.model.JobWait;
import io.pgqueue.model.JobState;
import io.pgqueue.model.NodeContainer;
import io.pgqueue.model.QueueListenerNode;
import io.pgqueue.model.QueueStats;
import io.pgqueue.model.ScheduleInfo;
import io.pgqueue.model.BatchCounts;
import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.WorkflowCounts;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowNodeInfo;
import org.jspecify.annotations.Nullable;

/**
 * What the dashboard's pages receive, as JSON. Payloads, outputs and errors are masked unless
 * {@code pgqueue.dashboard.show-payloads} shows them.
 */
final class DashboardViews {

    /** What a masked value reads as. */
    static final String MASK = Masking.MASK;

    private DashboardViews() {
    }

    static @Nullable String mask(@Nullable String value, boolean show) {
        return Masking.mask(value, show);
    }

    static Map<String, Long> counts(QueueStats stats) {
        Map<String, Long> counts = new LinkedHashMap<>();
        JobState.live().forEach((state) -> counts.put(state.value(), stats.counts().count(state)));
        return counts;
    }

    /**
     * Every queue at a glance.
     *
     * @param at when the numbers were read
     * @param cluster the sums over all queues
     * @param queues each queue
     * @param nodes nodes in the cluster
     * @param rates the cluster's throughput history, oldest first
     */
    record Overview(Instant at, QueueView cluster, List<QueueView> queues, int nodes, List<RatePoint> rates,
            @Nullable String vacuumHold, List<DatabaseView> databases) {

        /**
         * The overview of these queues: the cluster's whole rate history, each queue's sparkline points, and
         * what holds back vacuum, when it has held longer than the warning threshold.
         */
        static Overview of(Instant now, List<QueueStats> queues, ThroughputHistory.Rates rates, int nodes,
                @Nullable String vacuumHold, List<DatabaseStatus> databases) {
            QueueView cluster = QueueView.cluster(queues, rates);
            return new Overview(now, cluster,
                    queues.stream().map((stats) -> QueueView.of(stats, rates, QueueView.SPARK_POINTS)).toList(), nodes,
                    cluster.rates(), vacuumHold, databases.stream().map(DatabaseView::of).toList());
        }
    }

    /**
     * One of several databases (none with one database): the page shows each one's state and a database column.
     *
     * @param name its name ({@code default} for the application's DataSource)
     * @param up whether it answered
     * @param error why not, when not
     * @param replicaLagSeconds how far its read replica is behind, when it has one
     * @param queues the queues it lists (the default database holds every other)
     */
    record DatabaseView(String name, boolean up, @Nullable String error, @Nullable Double replicaLagSeconds,
            List<String> queues) {

        static DatabaseView of(DatabaseStatus status) {
            return new DatabaseView(status.name(), status.up(), status.error(), QueueView.seconds(status.replicaLag()),
                    status.queues());
        }
    }

    /**
     * A queue (or the cluster's sums).
     *
     * @param name queue name (empty for the cluster)
     * @param jobs jobs per live state, from the counters
     * @param enqueued jobs ever sent
     * @param completed jobs ever completed
     * @param failed failed attempts ever
     * @param deadLettered jobs ever dead
     * @param cancelled jobs ever cancelled
     * @param lagSeconds age of the oldest ready job, or null
     * @param paused whether it is paused
     * @param completedPerMinute over about the last ten seconds, or null before two samples
     * @param failedPerMinute over about the last ten seconds, or null before two samples
     * @param rates its throughput history, oldest first
     * @param listeners the nodes listening to it (none for the cluster)
     */
    record QueueView(String name, Map<String, Long> jobs, long enqueued, long completed, long failed, long deadLettered,
            long cancelled, @Nullable Double lagSeconds, boolean paused, @Nullable Double completedPerMinute,
            @Nullable Double failedPerMinute, List<RatePoint> rates, List<QueueListenerNode> listeners) {

        /**
         * Points of a queue's sparkline on the overview: what the page draws, not the whole kept history, which
         * at 300 queues made every refresh megabytes.
         */
        static final int SPARK_POINTS = 60;

        static QueueView of(QueueStats stats, ThroughputHistory.Rates rates) {
            return of(stats, rates, Integer.MAX_VALUE);
        }

        /** The queue with at most the newest {@code points} of its rate history. */
        static QueueView of(QueueStats stats, ThroughputHistory.Rates rates, int points) {
            RatePoint current = rates.current().get(stats.queue());
            List<RatePoint> history = rates.history().getOrDefault(stats.queue(), List.of());
            return new QueueView(stats.queue(), counts(stats), stats.counts().enqueued(), stats.counts().completed(),
                    stats.counts().failed(), stats.counts().deadLettered(), stats.counts().cancelled(),
                    seconds(stats.lag()), stats.paused(), (current != null) ? current.completedPerMinute() : null,
                    (current != null) ? current.failedPerMinute() : null,
                    history.subList(Math.max(0, history.size() - points), history.size()), stats.listeners());
        }

        static QueueView cluster(List<QueueStats> queues, ThroughputHistory.Rates rates) {
            Map<String, Long> jobs = new LinkedHashMap<>();
            JobState.live().forEach((state) -> jobs.put(state.value(), 0L));
            long enqueued = 0;
            long completed = 0;
            long failed = 0;
            long dead = 0;
            long cancelled = 0;
            Double lag = null;
            for (QueueStats stats : queues) {
                counts(stats).forEach((state, count) -> jobs.merge(state, count, Long::sum));
                enqueued += stats.counts().enqueued();
                completed += stats.counts().completed();
                failed += stats.counts().failed();
                dead += stats.counts().deadLettered();
                cancelled += stats.counts().cancelled();
                Double queueLag = seconds(stats.lag());
                lag = (queueLag == null || (lag != null && lag >= queueLag)) ? lag : queueLag;
            }
            RatePoint current = rates.current().get(ThroughputHistory.CLUSTER);
            return new QueueView("", jobs, enqueued, completed, failed, dead, cancelled, lag, false,
                    (current != null) ? current.completedPerMinute() : null,
                    (current != null) ? current.failedPerMinute() : null,
                    rates.history().getOrDefault(ThroughputHistory.CLUSTER, List.of()), List.of());
        }

        private static @Nullable Double seconds(@Nullable Duration duration) {
            return (duration != null) ? duration.toMillis() / 1000.0 : null;
        }
    }

    /**
     * A page of a queue's jobs, newest first.
     *
     * @param jobs the jobs
     * @param nextCursor the {@code before} of the next page, or null on the last one
     */
    record JobPageView(List<JobRow> jobs, @Nullable Long nextCursor) {
    }

    /**
     * A job in a list.
     *
     * @param id job id
     * @param state its state
     * @param attempts attempts made
     * @param maxAttempts attempts allowed, or null until its first claim
     * @param priority its priority
     * @param runAt when it may run
     * @param enqueuedAt when it was sent
     * @param finishedAt when it finished, or null
     * @param groupKey its group key, or null
     * @param dedupKey its dedup key, or null
     * @param progressPercent reported progress, or null
     * @param error the first line of its last error (masked unless shown), or null
     */
    record JobRow(long id, String state, int attempts, @Nullable Integer maxAttempts, int priority, Instant runAt,
            Instant enqueuedAt, @Nullable Instant finishedAt, @Nullable String groupKey, @Nullable String dedupKey,
            @Nullable Integer progressPercent, @Nullable String error) {

        static JobRow of(JobInfo job, boolean show) {
            String error = job.lastError();
            if (error != null) {
                int newline = error.indexOf('\n');
                error = (newline >= 0) ? error.substring(0, newline) : error;
            }
            return new JobRow(job.id(), job.state().value(), job.attempts(), job.maxAttempts(), job.priority(),
                    job.runAt(), job.enqueuedAt(), job.finishedAt(), mask(job.groupKey(), show),
                    mask(job.dedupKey(), show), (job.progress() != null) ? job.progress().percent() : null,
                    mask(error, show));
        }
    }

    /**
     * One job, whole.
     *
     * @param id job id
     * @param queue its queue
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
     * @param timeoutMillis its own timeout, or null
     * @param lockedBy the node running it, or null
     * @param leaseUntil when that node's lease runs out, or null
     * @param cancelRequested whether its cancellation was requested while running
     * @param progressPercent reported progress, or null
     * @param progressMessage reported progress message, or null
     * @param payload payload as JSON text, or the mask
     * @param payloadType Java type recorded at send, or null
     * @param lastError its last error with stack trace, or the mask
     * @param output its handler's return value as JSON text, or the mask
     * @param masked whether payload, error and output are masked
     * @param history what happened to it so far, oldest first
     * @param actions what an operator can do to it now ({@link AdminAction#verb()}): cancel, retry, purge
     */
    record JobView(long id, String queue, String state, int attempts, @Nullable Integer maxAttempts, int priority,
            Instant runAt, Instant enqueuedAt, @Nullable Instant attemptedAt, @Nullable Instant finishedAt,
            Map<String, String> headers, @Nullable String groupKey, @Nullable String dedupKey,
            @Nullable Long timeoutMillis, @Nullable UUID lockedBy, @Nullable Instant leaseUntil, boolean cancelRequested,
            @Nullable Integer progressPercent, @Nullable String progressMessage, @Nullable String payload,
            @Nullable String payloadType, @Nullable String lastError, @Nullable String output, boolean masked,
            List<Event> history, List<String> actions, @Nullable Long workflowId, @Nullable Long batchId,
            List<JobStep> steps, @Nullable JobWait waitingFor) {

        static JobView of(JobInfo job, boolean show) {
            return of(job, show, List.of(), null);
        }

        /**
         * @param steps its durable steps, their results already hidden unless shown
         * @param waitingFor what it waits for when parked (an event's key masked unless shown), else null
         */
        static JobView of(JobInfo job, boolean show, List<JobStep> steps, @Nullable JobWait waitingFor) {
            // wake is for a scheduled job that waits for something, not for every scheduled one
            List<String> actions = new ArrayList<>(actions(job.state()));
            if (waitingFor == null) {
                actions.remove(AdminAction.WAKE.verb());
            }
            JobWait shownWait = (waitingFor != null && !show && waitingFor.eventKey() != null)
                    ? new JobWait(waitingFor.kind(), Masking.MASK, waitingFor.awaitedJobId(), waitingFor.until(),
                            waitingFor.since())
                    : waitingFor;
            return new JobView(job.id(), job.queue(), job.state().value(), job.attempts(), job.maxAttempts(),
                    job.priority(), job.runAt(), job.enqueuedAt(), job.attemptedAt(), job.finishedAt(),
                    Masking.maskValues(job.headers(), show), mask(job.groupKey(), show), mask(job.dedupKey(), show),
                    job.timeoutMillis(), job.lockedBy(), job.leaseUntil(),
                    job.cancelRequested(), (job.progress() != null) ? job.progress().percent() : null,
                    (job.progress() != null) ? mask(job.progress().message(), show) : null, mask(job.payload(), show),
                    job.payloadType(), mask(job.lastError(), show), mask(job.output(), show), !show, history(job),
                    List.copyOf(actions), job.workflowId(), job.batchId(), steps, shownWait);
        }

        private static List<Event> history(JobInfo job) {
            List<Event> events = new ArrayList<>();
            events.add(new Event(job.enqueuedAt(), "enqueued"));
            if (job.attemptedAt() != null) {
                events.add(new Event(job.attemptedAt(), "attempt " + job.attempts() + " started"
                        + ((job.lockedBy() != null) ? " on node " + job.lockedBy() : "")));
            }
            switch (job.state()) {
                case SCHEDULED -> events.add(new Event(job.runAt(),
                        (job.attempts() > 0) ? "retry due (after " + job.attempts() + " failed attempt(s))" : "due"));
                case READY -> events.add(new Event(job.runAt(), "ready"));
                case RUNNING -> {
                    if (job.leaseUntil() != null) {
                        events.add(new Event(job.leaseUntil(), "lease runs out unless renewed"));
                    }
                }
                // when it died, not when its last attempt was due: that came before the attempt that killed it
                case DEAD -> events.add(new Event((job.finishedAt() != null) ? job.finishedAt() : job.runAt(),
                        "dead after " + job.attempts() + " attempt(s)"));
                default -> {
                    if (job.finishedAt() != null) {
                        events.add(new Event(job.finishedAt(), job.state().value()));
                    }
                }
            }
            events.sort(java.util.Comparator.comparing(Event::at));
            return events;
        }

        /** From the catalogue both front doors share. */
        private static List<String> actions(JobState state) {
            return AdminAction.forJob(state).stream().map(AdminAction::verb).toList();
        }
    }

    /**
     * A moment of a job's life.
     *
     * @param at when
     * @param what what happened, or will
     */
    record Event(Instant at, String what) {
    }

    /**
     * A recurring job.
     *
     * @param name its name
     * @param queue the queue its jobs go to
     * @param every its cron expression or fixed rate, as written
     * @param zone the cron's time zone
     * @param nextRunAt its next tick
     * @param lastRunAt its last tick, or null
     * @param paused whether it is paused
     * @param overridden whether its timing was changed at run time
     */
    record ScheduleView(String name, String queue, String every, String zone, Instant nextRunAt,
            @Nullable Instant lastRunAt, boolean paused, boolean overridden) {

        static ScheduleView of(ScheduleInfo schedule) {
            String every = (schedule.cron() != null) ? "cron " + schedule.cron()
                    : "every " + String.valueOf(schedule.fixedRate()).substring(2).toLowerCase(java.util.Locale.ROOT);
            return new ScheduleView(schedule.name(), schedule.queue(), every, schedule.zone().getId(),
                    schedule.nextRunAt(), schedule.lastRunAt(), schedule.paused(), schedule.overridden());
        }
    }

    /**
     * A node of the cluster.
     *
     * @param id node id
     * @param host its host
     * @param pid its process id
     * @param startedAt when it joined
     * @param heartbeatAt its last heartbeat
     * @param inFlight jobs it was running at that heartbeat
     * @param containers its listener containers at that heartbeat
     */
    record NodeView(UUID id, String host, long pid, Instant startedAt, Instant heartbeatAt, int inFlight,
            List<NodeContainer> containers) {

        static NodeView of(ClusterNode node) {
            return new NodeView(node.id(), node.host(), node.pid(), node.startedAt(), node.heartbeatAt(),
                    node.inFlight(), node.containers());
        }
    }

    /**
     * What an action did.
     *
     * @param action the action
     * @param target what it acted on
     * @param affected how many jobs or schedules it changed
     * @param result a word on the outcome (e.g. cancelled, cancel_requested), or null
     */
    record ActionResult(String action, String target, long affected, @Nullable String result) {
    }

    /**
     * A workflow's row: its counts by standing and what an operator can do to it.
     *
     * @param id its id
     * @param name its name
     * @param state running, failed, completed or cancelled
     * @param counts nodes waiting, active, dead, completed, cancelled, and in all
     * @param createdAt when it was submitted
     * @param finishedAt when it finished, or null
     * @param actions cancel while it has not finished
     */
    record WorkflowView(long id, String name, String state, Map<String, Long> counts, Instant createdAt,
            @Nullable Instant finishedAt, List<String> actions, WorkflowInfo.@Nullable Compensation compensation) {

        static WorkflowView of(WorkflowInfo workflow) {
            Map<String, Long> counts = new LinkedHashMap<>();
            WorkflowCounts c = workflow.counts();
            counts.put("waiting", c.waiting());
            counts.put("active", c.active());
            counts.put("dead", c.dead());
            counts.put("completed", c.completed());
            counts.put("cancelled", c.cancelled());
            counts.put("total", c.total());
            return new WorkflowView(workflow.id(), workflow.name(), workflow.state().value(), counts,
                    workflow.createdAt(), workflow.finishedAt(),
                    workflow.state().isFinished() ? List.of() : List.of(AdminAction.CANCEL.verb()),
                    workflow.compensation());
        }
    }

    /**
     * A batch in a list or on its page.
     *
     * @param id batch id
     * @param name its name
     * @param state open, running, succeeded, failed or cancelled
     * @param counts members active, dead, completed, cancelled, and in all
     * @param properties what its callbacks receive, or the mask
     * @param callbacks its callbacks: event, queue, state, job
     * @param createdAt when it was opened
     * @param sealedAt when it was sealed, or null
     * @param finishedAt when its last member finished, or null
     * @param actions cancel while it has not finished
     */
    record BatchView(long id, String name, String state, Map<String, Long> counts, Map<String, String> properties,
            List<BatchCallbackView> callbacks, Instant createdAt, @Nullable Instant sealedAt,
            @Nullable Instant finishedAt, List<String> actions) {

        static BatchView of(BatchInfo batch, boolean show) {
            Map<String, Long> counts = new LinkedHashMap<>();
            BatchCounts c = batch.counts();
            counts.put("active", c.active());
            counts.put("dead", c.dead());
            counts.put("completed", c.completed());
            counts.put("cancelled", c.cancelled());
            counts.put("total", c.total());
            return new BatchView(batch.id(), batch.name(), batch.state().value(), counts,
                    Masking.maskValues(batch.properties(), show),
                    batch.callbacks().stream().map((k) -> new BatchCallbackView(k.event().value(), k.queue(), k.state(),
                            k.jobId(), k.firedAt())).toList(),
                    batch.createdAt(), batch.sealedAt(), batch.finishedAt(),
                    batch.state().isFinished() ? List.of() : List.of(AdminAction.CANCEL.verb()));
        }
    }

    /**
     * A batch's callback.
     *
     * @param event success, complete, first_death or cannot_succeed
     * @param queue its job's queue
     * @param state pending, fired or skipped
     * @param jobId its job once fired
     * @param firedAt when it fired
     */
    record BatchCallbackView(String event, String queue, String state, @Nullable Long jobId,
            @Nullable Instant firedAt) {
    }

    /**
     * A live member of a batch.
     *
     * @param jobId its job
     * @param queue its queue
     * @param state its state
     * @param attempts attempts started
     * @param error its last error's first line, or the mask
     */
    record BatchMemberView(long jobId, String queue, String state, int attempts, @Nullable String error) {

        static BatchMemberView of(BatchMemberInfo member, boolean show) {
            return new BatchMemberView(member.jobId(), member.queue(), member.state().value(), member.attempts(),
                    mask(member.error(), show));
        }
    }

    /**
     * A batch with a page of its live members.
     *
     * @param batch the batch
     * @param members live members after {@code after}, in job id order
     * @param next the job id to page on from, or null on the last page
     */
    record BatchDetail(BatchView batch, List<BatchMemberView> members, @Nullable Long next) {
    }

    /**
     * One node of a workflow's graph.
     *
     * @param name its name
     * @param jobId its job
     * @param queue its queue
     * @param state its job's state
     * @param parents its parents' names
     * @param error why it was cancelled or its last error's first line, or the mask
     */
    record WorkflowNodeView(String name, long jobId, String queue, String state, List<String> parents,
            @Nullable String error) {

        static WorkflowNodeView of(WorkflowNodeInfo node, boolean show) {
            return new WorkflowNodeView(node.name(), node.jobId(), node.queue(), node.state().value(), node.parents(),
                    mask(node.error(), show));
        }
    }

    /**
     * A workflow with the first of its nodes.
     *
     * @param workflow the workflow
     * @param nodes its first nodes in job id order
     * @param more whether it has more nodes than shown
     */
    record WorkflowDetail(WorkflowView workflow, List<WorkflowNodeView> nodes, boolean more) {
    }

    /**
     * Dead jobs to act on: the given ids, or every dead job matching the filter when {@code all}.
     *
     * @param ids the selected jobs
     * @param all whether to act on every dead job matching the filter instead
     * @param filter the list's filter (groupKey, dedupKey, header, enqueuedAfter, enqueuedBefore)
     */
    record DeadSelection(@Nullable List<Long> ids, boolean all, @Nullable Map<String, String> filter) {
    }

    /**
     * Why a request was refused.
     *
     * @param error the reason
     */
    record Refusal(String error) {
    }

    /**
     * A fairness key of a queue as the queue's page lists it.
     *
     * @param key the key
     * @param status active, paused or idle
     * @param weight the key's weight: set at run time, else configured for the key, else the queue's default
     * @param weightSetAtRunTime whether {@code weight} was set at run time (else it is the configured one)
     * @param ready ready jobs, counted up to {@code readyLimit}
     * @param readyLimit the count's bound: a key with this many ready jobs may have more
     * @param running running jobs
     * @param waitingSeconds how long the key's next job has been ready, or null when it has none
     */
    record FairnessKeyView(String key, String status, double weight, boolean weightSetAtRunTime, long ready,
            long readyLimit, long running, @Nullable Double waitingSeconds) {

        /** The view of a key (shown as {@code key}, its handle when masked) whose configured weight is given. */
        static FairnessKeyView of(FairnessKeyInfo key, String shown, double configuredWeight, Instant now) {
            String status = key.paused() ? "paused" : key.active() ? "active" : "idle";
            Double waiting = (key.nextReadySince() != null)
                    ? Math.max(0, Duration.between(key.nextReadySince(), now).toMillis() / 1000.0) : null;
            return new FairnessKeyView(shown, status, (key.weight() != null) ? key.weight() : configuredWeight,
                    key.weight() != null, key.ready(), FairnessKeyInfo.READY_COUNT_LIMIT, key.running(), waiting);
        }
    }
}
