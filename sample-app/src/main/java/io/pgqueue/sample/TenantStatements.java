package io.pgqueue.sample;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.pgqueue.QueueOperations;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Tenants sharing one fair queue ({@code pgqueue.queues.statements.fairness} in application.yml): a tenant that
 * asks for thousands of statements does not hold up one that asks for ten; its workers are shared among the
 * tenants with jobs by weight. {@code curl -s -XPOST 'localhost:8080/tenants/acme/statements?count=2000'}
 */
@RestController
class TenantStatements {

    static final String STATEMENTS_QUEUE = "statements";

    private final QueueOperations queue;

    TenantStatements(QueueOperations queue) {
        this.queue = queue;
    }

    /** One statement to render for a tenant's customer. */
    record Statement(String tenant, int customer) {
    }

    @PostMapping("/tenants/{tenant}/statements")
    Map<String, Object> request(@PathVariable String tenant, @RequestParam(defaultValue = "100") int count) {
        SendOptions ofTenant = SendOptions.builder().fairnessKey(tenant).build(); // charged to the tenant
        List<Statement> statements = IntStream.range(0, Math.min(count, 100_000))
            .mapToObj((customer) -> new Statement(tenant, customer))
            .toList();
        return Map.of("tenant", tenant, "sent", queue.sendBatch(STATEMENTS_QUEUE, statements, ofTenant).inserted());
    }

    @Component
    static class Renderer {

        private static final Logger logger = LoggerFactory.getLogger(Renderer.class);

        @QueueListener(queue = STATEMENTS_QUEUE, concurrency = "4")
        void render(Statement statement, JobContext job) throws InterruptedException {
            Thread.sleep(5); // rendering a PDF, here a pause
            if (statement.customer() % 500 == 0) {
                logger.info("Rendered statement {} of tenant {} (job {})", statement.customer(), statement.tenant(),
                        job.id());
            }
        }
    }
}
