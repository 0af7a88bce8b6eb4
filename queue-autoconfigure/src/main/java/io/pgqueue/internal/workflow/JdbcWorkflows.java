package io.pgqueue.internal.workflow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.Set;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.SendOptions;
import io.pgqueue.internal.persistence.NewJob;
import io.pgqueue.internal.persistence.WorkflowRepository;
import io.pgqueue.internal.persistence.WorkflowRepository.NewEdge;
import io.pgqueue.internal.persistence.WorkflowRepository.CompensableNode;
import io.pgqueue.internal.persistence.WorkflowRepository.NewCompensation;
import io.pgqueue.internal.persistence.WorkflowRepository.NewNode;
import io.pgqueue.internal.persistence.WorkflowRepository.StoredNode;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.JobState;
import io.pgqueue.workflow.DependencyPolicy;
import io.pgqueue.workflow.InvalidWorkflowException;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowContext;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import io.pgqueue.workflow.WorkflowSubmission;
import org.jspecify.annotations.Nullable;

/**
 * pgqueue's {@link WorkflowOperations}: submits a workflow in the caller's transaction (nodes inserted in
 * bounded statements, edges named by job ids taken beforehand), adds nodes for a running node, and makes the
 * {@link WorkflowContext} of a node's handler.
 */
public final class JdbcWorkflows implements WorkflowOperations {

    /** Nodes per insert statement: a million-node workflow is two hundred statements in one transaction. */
    static final int NODES_PER_STATEMENT = 5_000;

    private final WorkflowRepository repository;

    private final JobPayloadCodec codec;

    private final Wakeups wakeups;

    /** Where a queue lives when not in this database (several databases), else null. */
    private Function<String, @Nullable String> elsewhere = (queue) -> null;

    public JdbcWorkflows(WorkflowRepository repository, JobPayloadCodec codec, Wakeups wakeups) {
        this.repository = repository;
        this.codec = codec;
        this.wakeups = wakeups;
    }

    /**
     * With queues in several databases: where each queue lives when not in this one (a description such as
     * "database 'reporting'"), or null. A workflow stays within one database; nodes elsewhere are refused.
     */
    public void setQueuePlacement(Function<String, @Nullable String> elsewhere) {
        this.elsewhere = elsewhere;
    }

    private void checkPlacement(String workflow, List<WorkflowNode> nodes) {
        for (WorkflowNode node : nodes) {
            String other = elsewhere.apply(node.queue());
            if (other != null) {
                throw new InvalidWorkflowException("Node '" + node.name() + "' of workflow '" + workflow + "' is on queue '"
                        + node.queue() + "', which lives in " + other + ": a workflow's nodes must all live in one "
                        + "database; nothing was submitted");
            }
        }
    }

    @Override
    public WorkflowSubmission submit(Workflow workflow) {
        checkPlacement(workflow.name(), workflow.nodes());
        return repository.inTransaction(() -> {
            long id = repository.create(workflow.name(), workflow.defaultPolicy().value());
            Map<String, Long> jobIds = insert(id, workflow.nodes(), (child, parent) -> workflow.policy(child, parent),
                    Map.of(), null);
            return new WorkflowSubmission(id, jobIds);
        });
    }

    /**
     * Adds nodes to a workflow for its running node {@code adder}: nodes whose names exist are skipped; parents
     * must be new nodes, the adder, or nodes that completed.
     */
    Map<String, Long> add(long workflowId, String adder, long adderJobId, List<WorkflowNode> nodes) {
        checkPlacement(String.valueOf(workflowId), nodes);
        return repository.inTransaction(() -> {
            WorkflowRepository.LockedWorkflow locked = repository.lock(workflowId);
            if (locked == null) {
                throw new InvalidWorkflowException("Workflow " + workflowId + " no longer exists");
            }
            Set<String> names = new LinkedHashSet<>();
            nodes.forEach((node) -> {
                names.add(node.name());
                names.addAll(node.parents().keySet());
            });
            Map<String, StoredNode> existing = repository.nodes(workflowId, names);
            List<WorkflowNode> added = nodes.stream().filter((node) -> !existing.containsKey(node.name())).toList();
            if (added.isEmpty()) {
                return Map.of();
            }
            Map<String, Long> liveParents = new HashMap<>();
            for (WorkflowNode node : added) {
                for (String parent : node.parents().keySet()) {
                    StoredNode stored = existing.get(parent);
                    if (stored == null) {
                        continue;
                    }
                    if (parent.equals(adder)) {
                        liveParents.put(parent, adderJobId);
                    }
                    else if (stored.state() != JobState.COMPLETED) {
                        throw new InvalidWorkflowException("Node '" + node.name() + "' cannot be added after '" + parent
                                + "', which is " + ((stored.state() != null) ? stored.state().value() : "gone")
                                + ": a node may be added after new nodes, the node adding it, or nodes that completed");
                    }
                }
            }
            return insert(workflowId, added, (child, parent) -> {
                DependencyPolicy policy = child.parents().get(parent);
                return (policy != null) ? policy : DependencyPolicy.valueOf(locked.defaultPolicy().toUpperCase(java.util.Locale.ROOT));
            }, liveParents, existing.keySet());
        });
    }

    /**
     * Inserts nodes: edges to nodes among them and to {@code liveParents} wait; parents in {@code completed}
     * (existing, completed nodes) are satisfied already.
     */
    private Map<String, Long> insert(long workflowId, List<WorkflowNode> nodes,
            java.util.function.BiFunction<WorkflowNode, String, DependencyPolicy> policies, Map<String, Long> liveParents,
            @Nullable Set<String> existing) {
        if (existing != null) {
            checkAdded(nodes, existing);
        }
        long[] allocated = repository.allocateJobIds(nodes.size());
        Map<String, Long> ids = new LinkedHashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            ids.put(nodes.get(i).name(), allocated[i]);
        }
        Set<String> readyQueues = new HashSet<>();
        for (int from = 0; from < nodes.size(); from += NODES_PER_STATEMENT) {
            List<WorkflowNode> chunk = nodes.subList(from, Math.min(nodes.size(), from + NODES_PER_STATEMENT));
            List<NewNode> rows = new ArrayList<>(chunk.size());
            List<NewEdge> edges = new ArrayList<>();
            for (WorkflowNode node : chunk) {
                long childId = ids.get(node.name());
                int pending = 0;
                for (String parent : node.parents().keySet()) {
                    Long parentId = ids.get(parent);
                    if (parentId == null) {
                        parentId = liveParents.get(parent);
                    }
                    if (parentId != null) {
                        pending++;
                        edges.add(new NewEdge(parentId, childId, policies.apply(node, parent).value()));
                    }
                }
                rows.add(new NewNode(childId, node.name(), node.queue(), newJob(node), pending,
                        List.copyOf(node.parents().keySet())));
            }
            readyQueues.addAll(repository.insertNodes(workflowId, rows, edges));
        }
        List<NewCompensation> compensations = new ArrayList<>();
        for (WorkflowNode node : nodes) {
            WorkflowNode.Compensation compensation = node.compensation();
            if (compensation != null) {
                compensations.add(new NewCompensation(node.name(), compensation.queue(),
                        codec.writePayload(compensation.queue(), compensation.payload()),
                        compensation.payload().getClass().getName()));
            }
        }
        if (!compensations.isEmpty()) {
            // only a workflow whose nodes declare compensations pays for this statement
            repository.insertCompensations(workflowId, compensations);
        }
        readyQueues.forEach(wakeups::jobsReady);
        return ids;
    }

    /** Checks added nodes as a graph whose outside parents are the existing nodes. */
    private static void checkAdded(List<WorkflowNode> nodes, Set<String> existing) {
        // a graph of the added nodes alone, with parents outside it removed, must be acyclic and well formed
        List<WorkflowNode> inside = new ArrayList<>();
        Set<String> names = new HashSet<>();
        nodes.forEach((node) -> names.add(node.name()));
        for (WorkflowNode node : nodes) {
            WorkflowNode copy = WorkflowNode.of(node.name(), node.queue(), node.payload());
            for (String parent : node.parents().keySet()) {
                if (names.contains(parent)) {
                    copy = copy.after(parent);
                }
                else if (!existing.contains(parent)) {
                    throw new InvalidWorkflowException("Node '" + node.name() + "' depends on '" + parent
                            + "', which is not a node of the workflow");
                }
            }
            inside.add(copy);
        }
        Workflow.builder("added").nodes(inside).build();
    }

    /**
     * Starts the compensations of up to {@code limit} workflows that failed for good (failed or cancelled, nothing
     * active or waiting) after nodes that declared one completed: each as a workflow of its own, submitted in the
     * transaction that marks them started, so that they are started once whatever crashes. A compensation runs
     * after those of the nodes that depended on its node (reverse dependency order); a dead compensation holds
     * the ones after it until an operator retries it.
     *
     * @return how many workflows it looked at (a full batch means: call again)
     */
    public int startCompensations(int limit) {
        return repository.inTransaction(() -> {
            List<Long> due = repository.lockCompensationsDue(limit);
            for (long workflowId : due) {
                List<WorkflowNode> compensations = compensationsOf(repository.compensableNodes(workflowId));
                Long compensationId = null;
                if (!compensations.isEmpty()) {
                    compensationId = repository.create(compensationName(repository.name(workflowId)),
                            DependencyPolicy.HOLD.value());
                    insert(compensationId, compensations, (child, parent) -> DependencyPolicy.HOLD, Map.of(), null);
                }
                repository.compensationStarted(workflowId, compensationId);
            }
            return due.size();
        });
    }

    private static String compensationName(String name) {
        String prefix = "compensation of ";
        return prefix + name.substring(0, Math.min(name.length(), WorkflowNode.MAX_NAME_LENGTH - prefix.length()));
    }

    /**
     * The compensation workflow's nodes: one per completed node that declared a compensation (same name), each
     * after the compensations of the nearest compensating nodes below it in the failed workflow's graph.
     */
    static List<WorkflowNode> compensationsOf(List<CompensableNode> nodes) {
        Map<String, List<String>> children = new HashMap<>();
        Map<String, CompensableNode> byName = new LinkedHashMap<>();
        for (CompensableNode node : nodes) {
            byName.put(node.name(), node);
            node.parents().forEach((parent) -> children.computeIfAbsent(parent, (key) -> new ArrayList<>()).add(node.name()));
        }
        List<WorkflowNode> compensations = new ArrayList<>();
        for (CompensableNode node : byName.values()) {
            NewCompensation compensation = node.compensation();
            if (compensation == null) {
                continue;
            }
            WorkflowNode undo = WorkflowNode.of(node.name(), compensation.queue(),
                    new StoredPayload(compensation.payloadJson(), compensation.payloadType()));
            List<String> after = nearestCompensating(node.name(), children, byName);
            compensations.add(after.isEmpty() ? undo : undo.after(after));
        }
        return compensations;
    }

    /** The compensating nodes below a node, not looking past one: theirs wait for those further down. */
    private static List<String> nearestCompensating(String from, Map<String, List<String>> children,
            Map<String, CompensableNode> byName) {
        List<String> found = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        java.util.ArrayDeque<String> next = new java.util.ArrayDeque<>(children.getOrDefault(from, List.of()));
        while (!next.isEmpty()) {
            String name = next.poll();
            if (!seen.add(name)) {
                continue;
            }
            CompensableNode node = byName.get(name);
            if (node != null && node.compensation() != null) {
                found.add(name);
            }
            else {
                next.addAll(children.getOrDefault(name, List.of()));
            }
        }
        return found;
    }

    /** A compensation's payload as it was written when its workflow was submitted: inserted as it is. */
    private record StoredPayload(String json, @Nullable String type) {
    }

    private NewJob newJob(WorkflowNode node) {
        SendOptions options = node.options();
        Duration delay = options.delay();
        if (node.payload() instanceof StoredPayload stored) {
            return new NewJob(stored.json(), stored.type(), null, options.priority(), null, 0L, null, null, null, null,
                    null, null, null);
        }
        return new NewJob(codec.writePayload(node.queue(), node.payload()), node.payload().getClass().getName(),
                codec.writeHeaders(options.headers()), options.priority(), options.runAt(),
                (delay != null) ? delay.toMillis() : 0L, options.maxAttempts(), null, options.groupKey(),
                millis(options.timeout()), null, null, options.fairnessKey());
    }

    private static @Nullable Long millis(@Nullable Duration duration) {
        return (duration != null) ? duration.toMillis() : null;
    }

    /** The context of a node's handler, read on first use. */
    public WorkflowContext context(long jobId, long workflowId) {
        return new NodeContext(this, repository, codec, jobId, workflowId);
    }
}
