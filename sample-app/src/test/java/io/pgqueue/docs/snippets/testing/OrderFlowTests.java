package io.pgqueue.docs.snippets.testing;

import io.pgqueue.test.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

// tag::purge[]
@SpringBootTest
class OrderFlowTests {

    @Autowired
    ApplicationContext context;

    @AfterEach
    void emptyQueues() {
        // every queue of every database: jobs, history, workflows, batches, counters
        QueueTestSupport.of(context).purgeAll();
        // or one queue: QueueTestSupport.of(context).purge("emails");
    }
}
// end::purge[]
