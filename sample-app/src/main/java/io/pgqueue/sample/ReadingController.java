package io.pgqueue.sample;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.pgqueue.JobRequest;
import io.pgqueue.QueueOperations;
import io.pgqueue.SendOptions;
import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.SendResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Accepts meter readings and enqueues them for processing.
 */
@RestController
class ReadingController {

    static final String READINGS_QUEUE = "meter-readings";

    private static final Log logger = LogFactory.getLog(ReadingController.class);

    private final QueueOperations queue;

    ReadingController(QueueOperations queue) {
        this.queue = queue;
    }

    /**
     * Load generator: enqueues {@code count} random readings for accounts 1 to 100 in one statement, to
     * watch the metrics move.
     */
    @PostMapping("/load")
    Map<String, Object> load(@RequestParam(defaultValue = "1000") int count) {
        if (count < 1 || count > 100_000) {
            throw new IllegalArgumentException("count must be between 1 and 100000");
        }
        List<JobRequest> readings = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long account = ThreadLocalRandom.current().nextLong(1, 101);
            MeterReading reading = new MeterReading(account,
                    BigDecimal.valueOf(ThreadLocalRandom.current().nextInt(1, 5000), 3));
            readings.add(JobRequest.of(reading, SendOptions.builder().groupKey("account-" + account).build()));
        }
        BatchSendResult result = queue.sendBatch(READINGS_QUEUE, readings);
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("enqueued", result.inserted());
        response.put("queue", READINGS_QUEUE);
        return response;
    }

    /** Enqueues one reading; readings of one account are processed in order. */
    @PostMapping("/readings")
    Map<String, Object> submit(@RequestBody MeterReading reading) {
        SendResult result = queue.send(READINGS_QUEUE, reading,
                SendOptions.builder().groupKey("account-" + reading.accountId()).build());
        logger.info("Reading of account " + reading.accountId() + " accepted as job " + result.jobId());
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("jobId", result.jobId());
        response.put("queue", READINGS_QUEUE);
        return response;
    }
}
