package io.pgqueue.sample;

import java.math.BigDecimal;
import java.math.RoundingMode;

import java.time.Instant;

import io.pgqueue.QueueOperations;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Records a meter reading and charges the account. TRANSACTIONAL delivery: the reading row, the balance
 * update, the follow-up jobs and the acknowledgement of this job commit together, or not at all. Readings
 * are sent with the account as group key, so one account's readings are processed one at a time, in order.
 */
@Component
class ReadingListener {

    static final BigDecimal PRICE_PER_KWH = new BigDecimal("0.30");

    private static final Log logger = LogFactory.getLog(ReadingListener.class);

    private final JdbcClient jdbc;

    private final QueueOperations queue;

    ReadingListener(JdbcClient jdbc, QueueOperations queue) {
        this.jdbc = jdbc;
        this.queue = queue;
    }

    @QueueListener(queue = ReadingController.READINGS_QUEUE, mode = "TRANSACTIONAL", concurrency = "2")
    void record(MeterReading reading, JobContext job) {
        BigDecimal amount = reading.kwh().multiply(PRICE_PER_KWH).setScale(2, RoundingMode.HALF_UP);
        jdbc.sql("INSERT INTO meter_reading (account_id, kwh, amount, job_id) VALUES (?, ?, ?, ?)")
            .params(reading.accountId(), reading.kwh(), amount, job.id())
            .update();
        int updated = jdbc.sql("UPDATE account SET balance = balance + ?, kwh_total = kwh_total + ? WHERE id = ?")
            .params(amount, reading.kwh(), reading.accountId())
            .update();
        if (updated == 0) {
            throw new IllegalArgumentException("No account " + reading.accountId());
        }
        logger.info("Recorded " + reading.kwh() + " kWh for account " + reading.accountId() + " (job " + job.id() + ")");
        queue.send(BillingListener.BILLS_QUEUE, new Bill(reading.accountId(), amount));
        queue.send(UsageBatchListener.USAGE_QUEUE, new UsageEvent(reading.accountId(), reading.kwh()),
                SendOptions.builder().runAt(UsageBatchListener.bucketEnd(Instant.now())).build());
    }
}
