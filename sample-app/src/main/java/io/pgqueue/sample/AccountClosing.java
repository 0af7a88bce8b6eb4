package io.pgqueue.sample;

import java.math.BigDecimal;
import java.util.Map;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Closing an account as a workflow: the final bill and the data export run side by side, the deposit refund
 * after the final bill (with its amount), and the closing itself only once both the refund and the export are
 * done. Each step is an ordinary job, retried on its own; a crash never runs a step before its parents committed.
 * {@code curl -s -XPOST localhost:8080/accounts/7/close}
 */
@RestController
class AccountClosing {

    private final WorkflowOperations workflows;

    AccountClosing(WorkflowOperations workflows) {
        this.workflows = workflows;
    }

    /** What each step receives: the account to close. */
    record Closing(long accountId) {
    }

    @PostMapping("/accounts/{id}/close")
    Map<String, Object> close(@PathVariable long id) {
        Closing closing = new Closing(id);
        long workflowId = workflows.submit(Workflow.builder("close-account-" + id)
            .node(WorkflowNode.of("final-bill", "closing-final-bill", closing))
            .node(WorkflowNode.of("export", "closing-export", closing))
            .node(WorkflowNode.of("refund", "closing-refund", closing).after("final-bill"))
            .node(WorkflowNode.of("close", "closing-close", closing).after("refund", "export"))
            .build()).id();
        return Map.of("workflowId", workflowId);
    }

    /** The steps. */
    @Component
    static class Steps {

        private static final Logger logger = LoggerFactory.getLogger(Steps.class);

        private final JdbcClient jdbc;

        Steps(JdbcClient jdbc) {
            this.jdbc = jdbc;
        }

        /** TRANSACTIONAL: the balance read and the step's completion are one transaction. */
        @QueueListener(queue = "closing-final-bill", mode = "TRANSACTIONAL", concurrency = "1")
        BigDecimal finalBill(Closing closing) {
            return jdbc.sql("SELECT balance FROM account WHERE id = ?").param(closing.accountId())
                .query(BigDecimal.class).optional().orElse(BigDecimal.ZERO); // kept for the refund
        }

        @QueueListener(queue = "closing-export")
        String export(Closing closing) {
            return "exports/account-" + closing.accountId() + ".json";
        }

        @QueueListener(queue = "closing-refund")
        BigDecimal refund(Closing closing, JobContext job) {
            BigDecimal balance = job.parentOutput("final-bill", BigDecimal.class).orElse(BigDecimal.ZERO);
            return new BigDecimal("50.00").subtract(balance).max(BigDecimal.ZERO); // the deposit, less what is owed
        }

        @QueueListener(queue = "closing-close", mode = "TRANSACTIONAL", concurrency = "1")
        void close(Closing closing, JobContext job) {
            logger.info("Account {} closed: refunded {} EUR, data exported to {} (workflow {})", closing.accountId(),
                    job.parentOutput("refund", BigDecimal.class).orElseThrow(),
                    job.parentOutput("export", String.class).orElseThrow(), job.workflow().id());
        }
    }
}
