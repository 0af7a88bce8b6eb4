package io.pgqueue.sample;

import java.util.Map;

import io.pgqueue.QueueOperations;
import io.pgqueue.SendOptions;
import io.pgqueue.SendResult;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Accepts meter readings and enqueues them for processing.
 */
@RestController
class ReadingController {

    static final String READINGS_QUEUE = "meter-readings";

    private final QueueOperations queue;

    ReadingController(QueueOperations queue) {
        this.queue = queue;
    }

    /** Enqueues one reading; readings of one account are processed in order. */
    @PostMapping("/readings")
    Map<String, Object> submit(@RequestBody MeterReading reading) {
        SendResult result = queue.send(READINGS_QUEUE, reading,
                SendOptions.builder().groupKey("account-" + reading.accountId()).build());
        return Map.of("jobId", result.jobId(), "queue", READINGS_QUEUE);
    }
}
