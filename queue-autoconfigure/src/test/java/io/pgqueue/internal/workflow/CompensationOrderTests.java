package io.pgqueue.internal.workflow;

import java.util.List;

import io.pgqueue.internal.persistence.WorkflowRepository.CompensableNode;
import io.pgqueue.internal.persistence.WorkflowRepository.NewCompensation;
import io.pgqueue.workflow.WorkflowNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order of a failed workflow's compensations, without a database: a node's compensation waits for those of
 * the nearest compensating nodes below it, looking through nodes that declared none or did not complete.
 */
class CompensationOrderTests {

    @Test
    void aNodesCompensationWaitsForThoseOfTheCompensatingNodesBelowIt() {
        // a -> b (no compensation) -> c; a -> d; e did not complete (no compensation to run)
        List<WorkflowNode> compensations = JdbcWorkflows.compensationsOf(List.of(node("a", List.of(), true),
                node("b", List.of("a"), false), node("c", List.of("b"), true), node("d", List.of("a"), true),
                node("e", List.of("c"), false)));

        assertThat(compensations).extracting(WorkflowNode::name).containsExactly("a", "c", "d");
        assertThat(compensations.get(0).parents().keySet()).containsExactlyInAnyOrder("c", "d");
        assertThat(compensations.get(1).parents()).isEmpty();
        assertThat(compensations.get(2).parents()).isEmpty();
    }

    @Test
    void aWorkflowWhoseCompletedNodesDeclaredNoCompensationHasNone() {
        assertThat(JdbcWorkflows.compensationsOf(List.of(node("a", List.of(), false), node("b", List.of("a"), false))))
            .isEmpty();
    }

    private static CompensableNode node(String name, List<String> parents, boolean compensates) {
        return new CompensableNode(name, parents,
                compensates ? new NewCompensation(name, "undo", "\"" + name + "\"", "java.lang.String") : null);
    }
}
