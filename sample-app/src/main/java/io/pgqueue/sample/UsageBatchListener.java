package io.pgqueue.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.pgqueue.annotation.QueueListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Deferred batching (seed 003's ignore_before): every reading sends a usage event due at the end of the
 * current ten-second bucket; when the bucket is due, this batch listener receives all of its events at once
 * and writes one aggregate row instead of one row per reading.
 */
@Component
class UsageBatchListener {

    static final String USAGE_QUEUE = "usage";

    static final Duration BUCKET = Duration.ofSeconds(10);

    private static final Logger logger = LoggerFactory.getLogger(UsageBatchListener.class);

    private final JdbcClient jdbc;

    UsageBatchListener(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The end of the bucket the given instant falls in. */
    static Instant bucketEnd(Instant now) {
        long bucket = BUCKET.toMillis();
        return Instant.ofEpochMilli((now.toEpochMilli() / bucket + 1) * bucket);
    }

    @QueueListener(queue = USAGE_QUEUE, batchSize = "500", concurrency = "1")
    void aggregate(List<UsageEvent> events) {
        BigDecimal total = events.stream().map(UsageEvent::kwh).reduce(BigDecimal.ZERO, BigDecimal::add);
        jdbc.sql("INSERT INTO usage_bucket (readings, kwh) VALUES (?, ?)").params(events.size(), total).update();
        logger.info("Aggregated {} readings ({} kWh) in one write", events.size(), total);
    }
}
