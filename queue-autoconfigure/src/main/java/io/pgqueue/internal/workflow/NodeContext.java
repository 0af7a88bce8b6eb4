package io.pgqueue.internal.workflow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.internal.persistence.WorkflowRepository;
import io.pgqueue.internal.persistence.WorkflowRepository.NodeOfJob;
import io.pgqueue.internal.persistence.WorkflowRepository.StoredNode;
import io.pgqueue.model.JobState;
import io.pgqueue.workflow.WorkflowContext;
import io.pgqueue.workflow.WorkflowNode;
import org.jspecify.annotations.Nullable;

/**
 * The {@link WorkflowContext} of one node's handler: its node row is read on first use, outputs and parents'
 * states on each call (on the handler's thread, so in a TRANSACTIONAL handler's transaction).
 */
final class NodeContext implements WorkflowContext {

    private final JdbcWorkflows workflows;

    private final WorkflowRepository repository;

    private final JobPayloadCodec codec;

    private final long jobId;

    private final long workflowId;

    private volatile @Nullable NodeOfJob node;

    NodeContext(JdbcWorkflows workflows, WorkflowRepository repository, JobPayloadCodec codec, long jobId,
            long workflowId) {
        this.workflows = workflows;
        this.repository = repository;
        this.codec = codec;
        this.jobId = jobId;
        this.workflowId = workflowId;
    }

    private NodeOfJob stored() {
        NodeOfJob current = node;
        if (current == null) {
            current = repository.nodeOfJob(jobId);
            if (current == null) {
                throw new IllegalStateException("Job " + jobId + " is not a node of workflow " + workflowId
                        + " (the workflow expired?)");
            }
            node = current;
        }
        return current;
    }

    @Override
    public long id() {
        return workflowId;
    }

    @Override
    public String name() {
        return stored().workflowName();
    }

    @Override
    public String node() {
        return stored().node();
    }

    @Override
    public List<String> parents() {
        return stored().parents();
    }

    @Override
    public <T> Optional<T> parentOutput(String parent, Class<T> type) {
        if (!parents().contains(parent)) {
            throw new IllegalArgumentException("'" + parent + "' is not a parent of node '" + node() + "'; its parents: "
                    + parents());
        }
        String json = repository.outputs(workflowId, List.of(parent)).get(parent);
        return (json != null) ? Optional.ofNullable(codec.mapper().readValue(json, type)) : Optional.empty();
    }

    @Override
    public <T> Map<String, T> parentOutputs(Class<T> type) {
        Map<String, T> outputs = new LinkedHashMap<>();
        repository.outputs(workflowId, parents())
            .forEach((parent, json) -> outputs.put(parent, codec.mapper().readValue(json, type)));
        return outputs;
    }

    @Override
    public List<String> failedParents() {
        Map<String, StoredNode> stored = repository.nodes(workflowId, parents());
        List<String> failed = new ArrayList<>();
        for (String parent : parents()) {
            StoredNode found = stored.get(parent);
            JobState state = (found != null) ? found.state() : null;
            if (state == null || state == JobState.DEAD || state == JobState.CANCELLED) {
                failed.add(parent);
            }
        }
        return failed;
    }

    @Override
    public Map<String, Long> add(List<WorkflowNode> nodes) {
        return workflows.add(workflowId, node(), jobId, nodes);
    }
}
