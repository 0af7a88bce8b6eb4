package io.pgqueue.sample;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchEvent;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.annotation.QueueListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A monthly billing run as a batch: one bill per account on the {@code bills} queue (rate-limited, retried), and
 * one callback once every bill went out; it fires once, after the last bill, never before the batch is sealed.
 * {@code curl -s -XPOST localhost:8080/billing-runs/2026-11}
 */
@RestController
class BillingRunController {

    static final String RUN_DONE_QUEUE = "billing-run-done";

    private final BatchOperations batches;

    private final JdbcClient jdbc;

    BillingRunController(BatchOperations batches, JdbcClient jdbc) {
        this.batches = batches;
        this.jdbc = jdbc;
    }

    @PostMapping("/billing-runs/{month}")
    @Transactional // the batch, its bills and the seal commit together, or none of them
    Map<String, Object> start(@PathVariable String month) {
        List<Long> accounts = jdbc.sql("SELECT id FROM account WHERE email IS NOT NULL ORDER BY id")
            .query(Long.class)
            .list();
        long batchId = batches.open(Batch.builder("billing-run " + month).property("month", month)
            .onSuccess(RUN_DONE_QUEUE)
            .build());
        batches.addAll(batchId, BillingListener.BILLS_QUEUE,
                accounts.stream().map((account) -> new Bill(account, new BigDecimal("9.90"))).toList());
        batches.seal(batchId);
        return Map.of("batchId", batchId, "bills", accounts.size());
    }

    /** The run's callback: once, when every bill of the month was emailed. */
    @Component
    static class RunDone {

        private static final Logger logger = LoggerFactory.getLogger(RunDone.class);

        @QueueListener(queue = RUN_DONE_QUEUE)
        void done(BatchEvent event) {
            logger.info("Billing run {} done: every bill emailed (batch {})", event.properties().get("month"),
                    event.batchId());
        }
    }
}
