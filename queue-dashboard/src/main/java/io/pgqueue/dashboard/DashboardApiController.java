package io.pgqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.pgqueue.admin.AdminAction;
import io.pgqueue.admin.AdminAction.Target;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.dashboard.DashboardAccess.ActionRefusedException;
import io.pgqueue.dashboard.DashboardViews.ActionResult;
import io.pgqueue.dashboard.DashboardViews.BatchDetail;
import io.pgqueue.dashboard.DashboardViews.BatchMemberView;
import io.pgqueue.dashboard.DashboardViews.BatchView;
import io.pgqueue.dashboard.DashboardViews.DeadSelection;
import io.pgqueue.dashboard.DashboardViews.FairnessKeyView;
import io.pgqueue.dashboard.DashboardViews.JobPageView;
import io.pgqueue.dashboard.DashboardViews.JobRow;
import io.pgqueue.dashboard.DashboardViews.JobView;
import io.pgqueue.dashboard.DashboardViews.NodeView;
import io.pgqueue.dashboard.DashboardViews.Overview;
import io.pgqueue.dashboard.DashboardViews.QueueView;
import io.pgqueue.dashboard.DashboardViews.Refusal;
import io.pgqueue.dashboard.DashboardViews.ScheduleView;
import io.pgqueue.dashboard.DashboardViews.WorkflowDetail;
import io.pgqueue.dashboard.DashboardViews.WorkflowNodeView;
import io.pgqueue.dashboard.DashboardViews.WorkflowView;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.NoSuchJobException;
import io.pgqueue.model.QueueStats;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.model.WorkflowState;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Made by {@link io.pgqueue.dashboard.autoconfigure.PgQueueDashboardAutoConfiguration}; public for it alone, not an API.
 * <p>
 * The JSON the dashboard's pages read and the actions they post, under {@code <path>/api}. Every number comes
 * from the counters, the lag probe or an index range ({@link QueueAdmin}), never from a count over the job
 * table.
 */
@RestController
@RequestMapping("${pgqueue.dashboard.path:/pgqueue}/api")
public class DashboardApiController {

    private final QueueAdmin admin;

    private final DashboardAccess access;

    private final ThroughputHistory throughput;

    private final boolean showPayloads;

    private final ConfiguredWeights configuredWeights;

    /** How long a hold on vacuum lasts before the overview warns about it. */
    private final Duration vacuumHoldWarning;

    /** A key's configured weight in its queue: the queue's weight for the key, else its default weight. */
    @FunctionalInterface
    public interface ConfiguredWeights {

        double weight(String queue, String key);
    }

    public DashboardApiController(QueueAdmin admin, DashboardAccess access, ThroughputHistory throughput,
            boolean showPayloads, Duration vacuumHoldWarning, ConfiguredWeights configuredWeights) {
        this.configuredWeights = configuredWeights;
        this.vacuumHoldWarning = vacuumHoldWarning;
        this.admin = admin;
        this.access = access;
        this.throughput = throughput;
        this.showPayloads = showPayloads;
    }

    @GetMapping("/overview")
    Overview overview() {
        List<QueueStats> queues = admin.queues();
        Instant now = Instant.now();
        return Overview.of(now, queues, throughput.record(now, queues), admin.nodes().size(), admin.vacuumHold()
            .filter((hold) -> hold.age(now).compareTo(vacuumHoldWarning) >= 0)
            .map((hold) -> hold.describe(now) + ": vacuum can remove no dead row of the queue tables until it ends")
            .orElse(null), admin.databases());
    }

    @GetMapping("/queues/{queue}")
    ResponseEntity<QueueView> queue(@PathVariable String queue) {
        return admin.queue(queue)
            .map((stats) -> ResponseEntity.ok(QueueView.of(stats, new ThroughputHistory.Rates(Map.of(), Map.of()))))
            .orElseGet(() -> ResponseEntity.notFound().build());
    }

    /** A page of the queue's jobs by the filters of {@link JobQuery#fromParameters}. */
    @GetMapping("/queues/{queue}/jobs")
    JobPageView jobs(@PathVariable String queue, @RequestParam Map<String, String> parameters) {
        // a row shows an error's first line and never a payload or output: the page reads no more
        var page = admin.jobs(JobQuery.fromParameters(queue, parameters).toBuilder().withoutContent().build());
        return new JobPageView(page.jobs().stream().map((job) -> JobRow.of(job, showPayloads)).toList(),
                page.nextCursor());
    }

    @GetMapping("/jobs/{id}")
    JobView job(@PathVariable long id) {
        return JobView.of(admin.job(id), showPayloads, admin.steps(id, showPayloads), admin.waitOf(id).orElse(null));
    }

    /** Ends a parked job's wait now (a sleep, an await of an event or a job). */
    @PostMapping("/jobs/{id}/wake")
    ActionResult wake(HttpServletRequest request, @PathVariable long id) {
        return act(request, AdminAction.WAKE.verb(), "job " + id, () -> {
            JobInfo job = admin.job(id);
            if (AdminAction.WAKE.onJob(admin, job.queue(), id).affected() == 0) {
                throw new IllegalStateException("Job " + id + " is " + job.state().value() + " and waits for nothing");
            }
            return 1L;
        });
    }

    /** Workflows newest first, by name and state, keyset-paged by {@code before}. */
    @GetMapping("/workflows")
    List<WorkflowView> workflows(@RequestParam(required = false) @Nullable String name,
            @RequestParam(required = false) @Nullable String state, @RequestParam(required = false) @Nullable Long before) {
        WorkflowQuery query = new WorkflowQuery((name != null && !name.isBlank()) ? name : null,
                (state != null && !state.isBlank()) ? WorkflowState.of(state) : null, before, WORKFLOW_PAGE);
        return admin.workflows(query).stream().map(WorkflowView::of).toList();
    }

    /** A workflow with its first {@value #WORKFLOW_NODES} nodes, for its graph. */
    @GetMapping("/workflows/{id}")
    ResponseEntity<WorkflowDetail> workflow(@PathVariable long id) {
        return admin.workflow(id).map((workflow) -> {
            List<WorkflowNodeInfo> nodes = admin.workflowNodes(id, 0, WORKFLOW_NODES + 1);
            return ResponseEntity.ok(new WorkflowDetail(WorkflowView.of(workflow),
                    nodes.stream().limit(WORKFLOW_NODES).map((node) -> WorkflowNodeView.of(node, showPayloads)).toList(),
                    nodes.size() > WORKFLOW_NODES));
        }).orElseGet(() -> ResponseEntity.notFound().build());
    }

    @PostMapping("/workflows/{id}/cancel")
    ActionResult cancelWorkflow(HttpServletRequest request, @PathVariable long id) {
        access.authorize(request, "cancel", "workflow " + id);
        BulkCancelResult result = admin.cancelWorkflow(id);
        return new ActionResult("cancel", "workflow " + id, result.cancelled() + result.cancelRequested(),
                result.cancelled() + " cancelled, " + result.cancelRequested() + " asked to cancel");
    }

    /** Batches newest first, by name and state, keyset-paged by {@code before}. */
    @GetMapping("/batches")
    List<BatchView> batches(@RequestParam(required = false) @Nullable String name,
            @RequestParam(required = false) @Nullable String state, @RequestParam(required = false) @Nullable Long before) {
        BatchQuery query = new BatchQuery((name != null && !name.isBlank()) ? name : null,
                (state != null && !state.isBlank()) ? BatchState.of(state) : null, before, WORKFLOW_PAGE);
        return admin.batches(query).stream().map((batch) -> BatchView.of(batch, showPayloads)).toList();
    }

    /** A batch with a page of {@value #BATCH_MEMBERS} live members after {@code after}. */
    @GetMapping("/batches/{id}")
    ResponseEntity<BatchDetail> batch(@PathVariable long id, @RequestParam(defaultValue = "0") long after) {
        return admin.batch(id).map((batch) -> {
            List<BatchMemberInfo> members = admin.batchMembers(id, after, BATCH_MEMBERS + 1);
            Long next = (members.size() > BATCH_MEMBERS) ? members.get(BATCH_MEMBERS - 1).jobId() : null;
            return ResponseEntity.ok(new BatchDetail(BatchView.of(batch, showPayloads),
                    members.stream().limit(BATCH_MEMBERS).map((member) -> BatchMemberView.of(member, showPayloads))
                        .toList(), next));
        }).orElseGet(() -> ResponseEntity.notFound().build());
    }

    @PostMapping("/batches/{id}/cancel")
    ActionResult cancelBatch(HttpServletRequest request, @PathVariable long id) {
        access.authorize(request, "cancel", "batch " + id);
        BulkCancelResult result = admin.cancelBatch(id);
        return new ActionResult("cancel", "batch " + id, result.cancelled() + result.cancelRequested(),
                result.cancelled() + " cancelled, " + result.cancelRequested() + " asked to cancel");
    }

    @GetMapping("/schedules")
    List<ScheduleView> schedules() {
        return admin.schedules().stream().map(ScheduleView::of).toList();
    }

    @GetMapping("/nodes")
    List<NodeView> nodes() {
        return admin.nodes().stream().map(NodeView::of).toList();
    }

    /** A fair queue's keys (active ones first, at most 100): weight, pause, ready and running jobs, wait. */
    @GetMapping("/queues/{queue}/keys")
    List<FairnessKeyView> keys(@PathVariable String queue) {
        Instant now = Instant.now();
        // masked, each key shows as its handle, which the key actions take in its place
        return admin.fairnessKeys(queue, 100).stream()
            .map((key) -> FairnessKeyView.of(key, showPayloads ? key.key() : key.masked().key(),
                    configuredWeights.weight(queue, key.key()), now))
            .toList();
    }

    @PostMapping("/queues/{queue}/keys/{key}/{action:pause|resume}")
    ActionResult pauseOrResumeKey(HttpServletRequest request, @PathVariable String queue, @PathVariable String key,
            @PathVariable String action) {
        return act(request, action, "queue " + queue + " key " + key, () -> {
            AdminAction.of(Target.FAIRNESS_KEY, action).onKey(admin, queue, key, null);
            return 1L;
        });
    }

    @PostMapping("/queues/{queue}/{action:pause|resume}")
    ActionResult pauseOrResume(HttpServletRequest request, @PathVariable String queue, @PathVariable String action) {
        return act(request, action, "queue " + queue, () -> {
            AdminAction.of(Target.QUEUE, action).onQueue(admin, queue);
            return 1L;
        });
    }

    @PostMapping("/jobs/{id}/cancel")
    ActionResult cancel(HttpServletRequest request, @PathVariable long id) {
        access.authorize(request, "cancel", "job " + id);
        AdminAction.Outcome outcome = AdminAction.CANCEL.onJob(admin, admin.job(id).queue(), id);
        return new ActionResult("cancel", "job " + id, outcome.affected(), outcome.result());
    }

    @PostMapping("/jobs/{id}/retry")
    ActionResult retry(HttpServletRequest request, @PathVariable long id) {
        return onDeadJob(request, AdminAction.RETRY, id,
                "only dead jobs are retried (or it is held back by a live job with its dedup key)");
    }

    @PostMapping("/jobs/{id}/purge")
    ActionResult purge(HttpServletRequest request, @PathVariable long id) {
        return onDeadJob(request, AdminAction.PURGE, id,
                "only dead jobs are deleted; cancel a job that has not finished");
    }

    /** An action on one dead job of whichever queue it is in; on a job in another state, says which. */
    private ActionResult onDeadJob(HttpServletRequest request, AdminAction action, long id, String onlyDead) {
        return act(request, action.verb(), "job " + id, () -> {
            JobInfo job = admin.job(id);
            if (action.onJob(admin, job.queue(), id).affected() == 0) {
                throw new IllegalStateException("Job " + id + " is " + job.state().value() + ": " + onlyDead);
            }
            return 1L;
        });
    }

    /**
     * Retries or purges dead jobs by ids or by filter. The body is read only once the request may act, and
     * only up to {@link #MAX_SELECTION_BYTES}: a caller who may not act cannot make the application parse an
     * unbounded id list.
     */
    @PostMapping("/queues/{queue}/dead/{action:retry|purge}")
    ActionResult dead(HttpServletRequest request, @PathVariable String queue, @PathVariable String action)
            throws java.io.IOException {
        access.authorize(request, action + " dead", "queue " + queue);
        DeadSelection selection = selection(request);
        if (selection.ids() != null && selection.ids().size() > MAX_SELECTED_IDS) {
            throw new IllegalArgumentException("At most " + MAX_SELECTED_IDS + " job ids at once; use a filter for more");
        }
        boolean retry = action.equals("retry");
        if (selection.all()) {
            JobQuery matching = JobQuery.fromFilter(queue,
                    (selection.filter() != null) ? selection.filter() : Map.of());
            return act(request, action + " all dead", "queue " + queue + " matching " + matching,
                    () -> retry ? admin.retryDead(matching) : admin.purgeDead(matching));
        }
        List<Long> ids = (selection.ids() != null) ? selection.ids() : List.of();
        return act(request, action + " dead", "jobs " + ids + " of queue " + queue,
                () -> (long) (retry ? admin.retryDead(queue, ids) : admin.purgeDead(queue, ids)));
    }

    private static final int MAX_SELECTION_BYTES = 256 * 1024;

    private static final int WORKFLOW_PAGE = 50;

    private static final int WORKFLOW_NODES = 500;

    /** Live members on one page of a batch. */
    private static final int BATCH_MEMBERS = 100;

    private static final int MAX_SELECTED_IDS = 1000;

    /** A selection without "all" selects by ids. */
    private static final tools.jackson.databind.json.JsonMapper SELECTION_READER = tools.jackson.databind.json.JsonMapper
        .builder()
        .disable(tools.jackson.databind.DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .build();

    private static DeadSelection selection(HttpServletRequest request) throws java.io.IOException {
        if (request.getContentLengthLong() > MAX_SELECTION_BYTES) {
            throw new IllegalArgumentException("The selection is larger than " + MAX_SELECTION_BYTES + " bytes");
        }
        byte[] body = request.getInputStream().readNBytes(MAX_SELECTION_BYTES + 1);
        if (body.length > MAX_SELECTION_BYTES) {
            throw new IllegalArgumentException("The selection is larger than " + MAX_SELECTION_BYTES + " bytes");
        }
        try {
            return SELECTION_READER.readValue(body, DeadSelection.class);
        }
        catch (tools.jackson.core.JacksonException ex) {
            throw new IllegalArgumentException("The selection is not valid JSON: " + ex.getOriginalMessage());
        }
    }

    @PostMapping("/schedules/{name}/{action:pause|resume|trigger}")
    ActionResult schedule(HttpServletRequest request, @PathVariable String name, @PathVariable String action) {
        return act(request, action, "schedule " + name,
                () -> AdminAction.of(Target.SCHEDULE, action).onSchedule(admin, name, null, null));
    }

    /** Runs an action once the request may act; refused and failed actions answer with the reason. */
    private ActionResult act(HttpServletRequest request, String action, String target, Supplier<Long> work) {
        access.authorize(request, action, target);
        return new ActionResult(action, target, work.get(), null);
    }

    @ExceptionHandler(ActionRefusedException.class)
    ResponseEntity<Refusal> refused(ActionRefusedException ex) {
        return ResponseEntity.status(HttpStatus.FORBIDDEN).body(new Refusal(ex.getMessage()));
    }

    @ExceptionHandler(NoSuchJobException.class)
    ResponseEntity<Refusal> noSuchJob(NoSuchJobException ex) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new Refusal(ex.getMessage()));
    }

    @ExceptionHandler({ IllegalArgumentException.class, IllegalStateException.class })
    ResponseEntity<Refusal> badRequest(RuntimeException ex) {
        return ResponseEntity.badRequest().body(new Refusal(ex.getMessage()));
    }
}
