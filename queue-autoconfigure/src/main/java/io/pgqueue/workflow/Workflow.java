package io.pgqueue.workflow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A named graph of jobs, checked when built: node names are unique, every parent is a node of the graph, and
 * there is no cycle (the error names one). Immutable; nodes are kept in the order given.
 *
 * <pre>{@code
 * Workflow order = Workflow.builder("order-1234")
 *     .node(WorkflowNode.of("charge", "payments", charge))
 *     .node(WorkflowNode.of("reserve", "stock", reserve))
 *     .node(WorkflowNode.of("ship", "shipping", ship).after("charge", "reserve"))
 *     .build();
 * }</pre>
 */
public final class Workflow {

    /** The most nodes one workflow may have (submitted and added together). */
    public static final int MAX_NODES = 1_000_000;

    /** The most parents one node may have. */
    public static final int MAX_PARENTS = 100_000;

    private final String name;

    private final List<WorkflowNode> nodes;

    private final DependencyPolicy defaultPolicy;

    private Workflow(String name, List<WorkflowNode> nodes, DependencyPolicy defaultPolicy) {
        this.name = name;
        this.nodes = nodes;
        this.defaultPolicy = defaultPolicy;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** The nodes, in the order given. */
    public List<WorkflowNode> nodes() {
        return nodes;
    }

    /** The policy of edges that do not name one. */
    public DependencyPolicy defaultPolicy() {
        return defaultPolicy;
    }

    /** The policy of an edge of this workflow. */
    public DependencyPolicy policy(WorkflowNode child, String parent) {
        DependencyPolicy policy = child.parents().get(parent);
        return (policy != null) ? policy : defaultPolicy;
    }

    /**
     * Checks nodes to be added to a graph: unique names among them, parents among them or {@code known}
     * (which an existing graph decides), no cycle among them, within the size limits.
     *
     * @param known whether a name outside {@code nodes} may be a parent
     */
    static void check(String workflow, Collection<WorkflowNode> nodes, java.util.function.Predicate<String> known) {
        if (nodes.size() > MAX_NODES) {
            throw new InvalidWorkflowException("Workflow '" + workflow + "' has " + nodes.size()
                    + " nodes; at most " + MAX_NODES + " are allowed");
        }
        Map<String, WorkflowNode> byName = new HashMap<>();
        for (WorkflowNode node : nodes) {
            if (byName.put(node.name(), node) != null) {
                throw new InvalidWorkflowException("Workflow '" + workflow + "' has two nodes named '" + node.name() + "'");
            }
            if (node.parents().size() > MAX_PARENTS) {
                throw new InvalidWorkflowException("Node '" + node.name() + "' of workflow '" + workflow + "' has "
                        + node.parents().size() + " parents; at most " + MAX_PARENTS + " are allowed");
            }
        }
        for (WorkflowNode node : nodes) {
            for (String parent : node.parents().keySet()) {
                if (!byName.containsKey(parent) && !known.test(parent)) {
                    throw new InvalidWorkflowException("Node '" + node.name() + "' of workflow '" + workflow
                            + "' depends on '" + parent + "', which is not a node of it");
                }
            }
        }
        List<String> cycle = cycle(nodes, byName);
        if (!cycle.isEmpty()) {
            throw new InvalidWorkflowException("Workflow '" + workflow + "' has a cycle: " + String.join(" -> ", cycle));
        }
    }

    /** A cycle among the nodes (first node repeated at its end), or empty; iterative, for long chains. */
    private static List<String> cycle(Collection<WorkflowNode> nodes, Map<String, WorkflowNode> byName) {
        Map<String, Integer> mark = new HashMap<>();
        for (WorkflowNode start : nodes) {
            if (mark.containsKey(start.name())) {
                continue;
            }
            Deque<String> path = new ArrayDeque<>();
            Deque<java.util.Iterator<String>> pending = new ArrayDeque<>();
            mark.put(start.name(), 1);
            path.push(start.name());
            pending.push(start.parents().keySet().iterator());
            while (!pending.isEmpty()) {
                java.util.Iterator<String> parents = pending.peek();
                if (!parents.hasNext()) {
                    mark.put(path.pop(), 2);
                    pending.pop();
                    continue;
                }
                String parent = parents.next();
                WorkflowNode next = byName.get(parent);
                if (next == null) {
                    continue;
                }
                Integer state = mark.get(parent);
                if (state == null) {
                    mark.put(parent, 1);
                    path.push(parent);
                    pending.push(next.parents().keySet().iterator());
                }
                else if (state == 1) {
                    List<String> cycle = new ArrayList<>();
                    cycle.add(parent);
                    for (String name : path) {
                        cycle.add(name);
                        if (name.equals(parent)) {
                            break;
                        }
                    }
                    // read from the first: each node finishes before the next may start
                    return cycle;
                }
            }
        }
        return List.of();
    }

    /** Builds a {@link Workflow}. */
    public static final class Builder {

        private final String name;

        private final Map<String, WorkflowNode> nodes = new LinkedHashMap<>();

        private final List<String> duplicates = new ArrayList<>();

        private DependencyPolicy defaultPolicy = DependencyPolicy.CANCEL;

        private Builder(String name) {
            Objects.requireNonNull(name, "workflow name");
            if (name.isBlank() || name.length() > WorkflowNode.MAX_NAME_LENGTH) {
                throw new InvalidWorkflowException("A workflow's name must be 1 to " + WorkflowNode.MAX_NAME_LENGTH
                        + " characters and not blank: '" + name + "'");
            }
            this.name = name;
        }

        public Builder node(WorkflowNode node) {
            Objects.requireNonNull(node, "node");
            if (nodes.putIfAbsent(node.name(), node) != null) {
                duplicates.add(node.name());
            }
            return this;
        }

        public Builder nodes(Collection<WorkflowNode> nodes) {
            nodes.forEach(this::node);
            return this;
        }

        /** The policy of edges that do not name one ({@link DependencyPolicy#CANCEL} unless set). */
        public Builder defaultPolicy(DependencyPolicy policy) {
            this.defaultPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * @throws InvalidWorkflowException on a duplicate name, an unknown parent, a cycle (named), no node at
         * all, or more than {@link #MAX_NODES} nodes or {@link #MAX_PARENTS} parents of one node
         */
        public Workflow build() {
            if (!duplicates.isEmpty()) {
                throw new InvalidWorkflowException("Workflow '" + name + "' has two nodes named '" + duplicates.get(0) + "'");
            }
            if (nodes.isEmpty()) {
                throw new InvalidWorkflowException("Workflow '" + name + "' has no node");
            }
            check(name, nodes.values(), (parent) -> false);
            return new Workflow(name, List.copyOf(nodes.values()), defaultPolicy);
        }
    }
}
