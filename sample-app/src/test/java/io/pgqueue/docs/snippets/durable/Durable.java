package io.pgqueue.docs.snippets.durable;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.pgqueue.QueueEvents;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.ChildJobFailedException;
import io.pgqueue.listener.JobContext;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import io.pgqueue.workflow.WorkflowSubmission;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

record Order(long id, long cents) {
}

record Charge(String paymentId) {
}

record User(long id, String email) {
}

record Verification(String method) {
}

record ImportFile(String name, int chunks) {
}

record Chunk(String file, int index) {
}

interface Payments {

    Charge charge(Order order);
}

interface Shipping {

    String ship(Order order);
}

interface Mailer {

    void welcome(User user);

    void remind(User user);
}

// tag::checkout[]
@Component
class CheckoutJob {

    private final Payments payments;

    private final Shipping shipping;

    private final JdbcTemplate jdbc;

    CheckoutJob(Payments payments, Shipping shipping, JdbcTemplate jdbc) {
        this.payments = payments;
        this.shipping = shipping;
        this.jdbc = jdbc;
    }

    @QueueListener(queue = "checkout")
    void checkout(Order order, JobContext ctx) {
        // an external call: stored once it returned; a retry of this job gets the stored charge back
        Charge charge = ctx.step("charge", Charge.class, () -> payments.charge(order));
        // database writes with their checkpoint in one transaction: exactly once
        ctx.transactionalStep("reserve", Integer.class,
                () -> jdbc.update("UPDATE stock SET reserved = reserved + 1 WHERE order_id = ?", order.id()));
        // if shipping fails, the retry charges nothing and reserves nothing again
        ctx.step("ship", String.class, () -> shipping.ship(order));
    }
}
// end::checkout[]

// tag::onboarding[]
@Component
class Onboarding {

    private final Mailer mailer;

    Onboarding(Mailer mailer) {
        this.mailer = mailer;
    }

    @QueueListener(queue = "onboarding")
    void onboard(User user, JobContext ctx) {
        ctx.step("welcome", () -> {
            mailer.welcome(user);
            return null;
        });
        ctx.sleep(Duration.ofDays(3)); // the job is a scheduled row meanwhile: no worker, no thread, no connection
        Optional<Verification> verified = ctx.awaitEvent("email-verified:" + user.id(), Duration.ofDays(7),
                Verification.class);
        if (verified.isEmpty()) {
            ctx.step("remind", () -> {
                mailer.remind(user);
                return null;
            });
        }
    }
}

@Service
class EmailVerification {

    private final QueueEvents events;

    EmailVerification(QueueEvents events) {
        this.events = events;
    }

    void verified(long userId) {
        // joins the caller's transaction; the waiting job runs again within milliseconds of the commit
        events.emit("email-verified:" + userId, new Verification("link"));
    }
}
// end::onboarding[]

// tag::import[]
@Component
class Importer {

    @QueueListener(queue = "imports")
    int importFile(ImportFile file, JobContext ctx) {
        // each spawn is a step: a resumed run gets the same ids back and sends nothing twice
        List<Long> chunks = java.util.stream.IntStream.range(0, file.chunks())
            .mapToObj((index) -> ctx.spawn("import-chunks", new Chunk(file.name(), index)))
            .toList();
        int rows = 0;
        for (long chunk : chunks) {
            try {
                Integer imported = ctx.awaitJob(chunk, Integer.class); // parks until that job finished
                rows += (imported != null) ? imported : 0;
            }
            catch (ChildJobFailedException ex) {
                // the chunk went dead (or was cancelled): the import decides what that means
                throw new IllegalStateException("chunk " + ex.childId() + " failed: " + ex.state(), ex);
            }
        }
        return rows;
    }

    @QueueListener(queue = "import-chunks", concurrency = "8")
    int importChunk(Chunk chunk) {
        return 1000; // its return value is what awaitJob returns
    }
}
// end::import[]

// tag::saga[]
@Service
class CheckoutSaga {

    private final WorkflowOperations workflows;

    CheckoutSaga(WorkflowOperations workflows) {
        this.workflows = workflows;
    }

    WorkflowSubmission place(Order order) {
        return workflows.submit(Workflow.builder("checkout-" + order.id())
            .node(WorkflowNode.of("charge", "payments", order)
                .compensate("refunds", order))                       // runs last, if charge completed
            .node(WorkflowNode.of("reserve", "stock", order).after("charge")
                .compensate("stock-releases", order))                // runs first, if reserve completed
            .node(WorkflowNode.of("ship", "shipping", order).after("reserve"))
            .build());
    }
}
// end::saga[]
