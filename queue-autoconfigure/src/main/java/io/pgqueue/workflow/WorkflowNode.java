package io.pgqueue.workflow;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.pgqueue.SendOptions;
import io.pgqueue.model.QueueNames;
import org.jspecify.annotations.Nullable;

/**
 * One job of a workflow: a name unique within the workflow, the queue and payload of its job, its send
 * options (priority, delay, run-at, attempts, timeout, group, headers; not dedup or debounce, which could drop a
 * node), and its parents, each with the policy that applies when that parent ends dead or cancelled (null:
 * the workflow's default). Immutable; made with {@link #of} and refined with {@link #after} and
 * {@link #options}, each of which returns a new node.
 */
public final class WorkflowNode {

    /** The longest node name. */
    public static final int MAX_NAME_LENGTH = 200;

    private final String name;

    private final String queue;

    private final Object payload;

    private final SendOptions options;

    private final Map<String, @Nullable DependencyPolicy> parents;

    private final @Nullable Compensation compensation;

    /**
     * The job that undoes a node's work when its workflow fails for good after the node completed.
     *
     * @param queue the compensating job's queue
     * @param payload its payload
     */
    public record Compensation(String queue, Object payload) {
    }

    private WorkflowNode(String name, String queue, Object payload, SendOptions options,
            Map<String, @Nullable DependencyPolicy> parents) {
        this(name, queue, payload, options, parents, null);
    }

    private WorkflowNode(String name, String queue, Object payload, SendOptions options,
            Map<String, @Nullable DependencyPolicy> parents, @Nullable Compensation compensation) {
        this.compensation = compensation;
        this.name = name;
        this.queue = queue;
        this.payload = payload;
        this.options = options;
        this.parents = parents;
    }

    /** A node without parents: it runs as soon as the workflow is submitted (or once its delay passed). */
    public static WorkflowNode of(String name, String queue, Object payload) {
        Objects.requireNonNull(name, "node name");
        if (name.isBlank() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("A workflow node's name must be 1 to " + MAX_NAME_LENGTH
                    + " characters and not blank: '" + name + "'");
        }
        QueueNames.validate(queue);
        Objects.requireNonNull(payload, () -> "payload of node '" + name + "'");
        return new WorkflowNode(name, queue, payload, SendOptions.defaults(), Map.of());
    }

    /** This node, waiting for the named parents under the workflow's default policy. */
    public WorkflowNode after(String... parents) {
        return after(java.util.Arrays.asList(parents), null);
    }

    /** This node, waiting for the parent under the given policy (null: the workflow's default). */
    public WorkflowNode after(String parent, @Nullable DependencyPolicy policy) {
        return after(List.of(parent), policy);
    }

    /** This node, waiting for all the named parents under the workflow's default policy (a join). */
    public WorkflowNode after(Collection<String> parents) {
        return after(parents, null);
    }

    /**
     * This node, waiting for all the named parents under the given policy (null: the workflow's default), in
     * one copy: a join of many parents is built in one call, not one copy of its parents per parent.
     */
    public WorkflowNode after(Collection<String> parents, @Nullable DependencyPolicy policy) {
        Map<String, @Nullable DependencyPolicy> more = new LinkedHashMap<>(this.parents);
        for (String parent : parents) {
            Objects.requireNonNull(parent, "parent name");
            if (parent.equals(name)) {
                throw new IllegalArgumentException("Workflow node '" + name + "' cannot depend on itself");
            }
            more.put(parent, policy);
        }
        return new WorkflowNode(name, queue, payload, options, Collections.unmodifiableMap(more), compensation);
    }

    /**
     * This node with a compensation: when the workflow fails for good (a node dead or cancelled with nothing left
     * to run, or the workflow cancelled) after this node completed, a job with this payload is sent to the queue.
     * The compensations of a workflow's completed nodes run as a workflow of their own, in reverse dependency
     * order (a node's after those of the nodes that depended on it), each once, each with its own retries.
     */
    public WorkflowNode compensate(String queue, Object payload) {
        QueueNames.validate(queue);
        Objects.requireNonNull(payload, () -> "compensation payload of node '" + name + "'");
        return new WorkflowNode(name, this.queue, this.payload, options, parents, new Compensation(queue, payload));
    }

    /** What undoes this node's work when its workflow fails, or null. */
    public @Nullable Compensation compensation() {
        return compensation;
    }

    /** This node with the given send options; dedup keys and debouncing are refused. */
    public WorkflowNode options(SendOptions options) {
        Objects.requireNonNull(options, "options");
        if (options.dedupKey() != null || options.debounceKey() != null) {
            throw new IllegalArgumentException("Workflow node '" + name + "' cannot have a dedup key or a debounce "
                    + "key: a send they turned away would leave its dependants without a parent");
        }
        return new WorkflowNode(name, queue, payload, options, parents, compensation);
    }

    public String name() {
        return name;
    }

    public String queue() {
        return queue;
    }

    public Object payload() {
        return payload;
    }

    public SendOptions options() {
        return options;
    }

    /** The parents' names, in the order given, with their policies (null: the workflow's default). */
    public Map<String, @Nullable DependencyPolicy> parents() {
        return parents;
    }

    @Override
    public String toString() {
        return "WorkflowNode[" + name + " on " + queue + (parents.isEmpty() ? "" : " after " + parents.keySet()) + "]";
    }
}
