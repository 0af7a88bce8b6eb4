package io.pgqueue.docs.snippets.workflows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import io.pgqueue.workflow.DependencyPolicy;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import io.pgqueue.workflow.WorkflowSubmission;

import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

record Order(long id, long cents) {
}

record Receipt(String paymentId) {
}

record Parcel(String tracking) {
}

// tag::order-submit[]
@Service
class Checkout {

    private final WorkflowOperations workflows;

    Checkout(WorkflowOperations workflows) {
        this.workflows = workflows;
    }

    @Transactional // roll back, and nothing of the workflow exists
    WorkflowSubmission place(Order order) {
        return workflows.submit(Workflow.builder("order-" + order.id())
            .node(WorkflowNode.of("charge", "payments", order))       // LEASE listener
            .node(WorkflowNode.of("reserve", "stock", order))         // TRANSACTIONAL listener
            .node(WorkflowNode.of("ship", "shipping", order).after("charge", "reserve"))
            .node(WorkflowNode.of("notify", "mail", order).after("ship")
                .options(SendOptions.builder().maxAttempts(10).build()))
            .build());
    }
}
// end::order-submit[]

// tag::order-steps[]
@Component // a listener is found only on a Spring bean
class OrderSteps {

    @QueueListener(queue = "payments")
    Receipt charge(Order order) {
        return new Receipt("pay-" + order.id()); // kept for the dependants
    }

    @QueueListener(queue = "shipping", mode = "TRANSACTIONAL")
    Parcel ship(Order order, JobContext job) {
        Receipt receipt = job.parentOutput("charge", Receipt.class).orElseThrow();
        return new Parcel("track-" + receipt.paymentId());
    }
}
// end::order-steps[]

@Component
class Import {

    // tag::split[]
    @QueueListener(queue = "imports")
    void split(String file, JobContext job) {
        List<WorkflowNode> nodes = new ArrayList<>();
        List<String> chunks = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            chunks.add("chunk-" + i);
            nodes.add(WorkflowNode.of("chunk-" + i, "imports-chunk", i).after("split"));
        }
        nodes.add(WorkflowNode.of("merge", "imports-merge", file).after(chunks)); // the join
        job.workflow().add(nodes); // a retried split adds nothing twice: existing names are skipped
    }
    // end::split[]

    // tag::join[]
    @QueueListener(queue = "imports-chunk", concurrency = "8")
    int chunk(int index) {
        return index; // rows imported
    }

    @QueueListener(queue = "imports-merge", mode = "TRANSACTIONAL")
    void merge(String file, JobContext job) {
        Map<String, Integer> rows = job.parentOutputs(Integer.class); // every chunk's output
        System.out.println(file + ": " + rows.values().stream().mapToInt(Integer::intValue).sum() + " rows");
    }
    // end::join[]
}

class Workflows {

    static Workflow policies(Order order) {
        // tag::policies[]
        return Workflow.builder("nightly-report")
            .defaultPolicy(DependencyPolicy.CANCEL)              // a dead parent cancels its dependants
            .node(WorkflowNode.of("extract", "etl", order))
            .node(WorkflowNode.of("load", "etl", order).after("extract", DependencyPolicy.HOLD)) // wait for a retry
            .node(WorkflowNode.of("audit", "etl", order).after("load", DependencyPolicy.RUN))    // run anyway
            .build();
        // end::policies[]
    }
}
