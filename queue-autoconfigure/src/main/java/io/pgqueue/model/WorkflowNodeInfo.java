package io.pgqueue.model;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One node of a workflow, with the state of its job.
 *
 * @param name its name
 * @param jobId its job's id
 * @param queue its job's queue
 * @param state its job's state (completed or cancelled once finished)
 * @param parents its parents' names: the edges of the graph
 * @param error why it was cancelled (e.g. which parent failed), or its job's last error, or null
 */
public record WorkflowNodeInfo(String name, long jobId, String queue, JobState state, List<String> parents,
        @Nullable String error) {
}
