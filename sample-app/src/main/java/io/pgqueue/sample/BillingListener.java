package io.pgqueue.sample;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Emails a bill (here: logs it). LEASE delivery: sending mail is not a database effect and may be slow, so it
 * runs outside any transaction and is retried with backoff; an account without an email address fails every
 * attempt and its bill ends up dead, visible with its error.
 */
@Component
class BillingListener {

    static final String BILLS_QUEUE = "bills";

    private static final Logger logger = LoggerFactory.getLogger(BillingListener.class);

    private final JdbcClient jdbc;

    BillingListener(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @QueueListener(queue = BILLS_QUEUE)
    void send(Bill bill, JobContext job) {
        String email = jdbc.sql("SELECT email FROM account WHERE id = ?")
            .param(bill.accountId())
            .query(String.class)
            .optional()
            .orElse(null);
        if (email == null) {
            throw new IllegalStateException("Account " + bill.accountId() + " has no email address");
        }
        logger.info("Emailed bill of {} EUR to {} (job {}, attempt {})", bill.amount(), email, job.id(), job.attempt());
    }
}
