package io.pgqueue.sample;

import java.util.Map;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Handles the recurring summary declared in application.yml ({@code pgqueue.schedules.usage-summary}):
 * one job per tick across the cluster, however many instances of the sample run.
 */
@Component
class SummaryListener {

    private static final Logger logger = LoggerFactory.getLogger(SummaryListener.class);

    private final JdbcClient jdbc;

    SummaryListener(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @QueueListener(queue = "summaries")
    void summarise(Map<String, Object> request, JobContext job) {
        Map<String, Object> totals = jdbc.sql("SELECT count(*) AS readings, coalesce(sum(kwh), 0) AS kwh FROM meter_reading")
            .query()
            .singleRow();
        logger.info("Summary '{}' for tick {}: {} readings, {} kWh", request.get("report"), job.headers().get("tick"),
                totals.get("readings"), totals.get("kwh"));
    }
}
