package io.pgqueue.docs.snippets.publishing;

import java.time.Duration;
import java.util.List;

import io.pgqueue.JobRequest;
import io.pgqueue.QueueOperations;
import io.pgqueue.SendOptions;
import io.pgqueue.docs.snippets.Fixtures.WelcomeEmail;
import io.pgqueue.model.BatchSendResult;
import io.pgqueue.model.SendResult;

class PublishingOptions {

    void options(QueueOperations queue, WelcomeEmail payload, long userId, String traceId, List<WelcomeEmail> payloads,
            WelcomeEmail mail, String id) {
        // tag::options[]
        SendResult result = queue.send("emails", payload, SendOptions.builder()
            .delay(Duration.ofMinutes(10)) // or .runAt(Instant)
            .priority(5) // higher runs first, default 0
            .dedupKey("welcome-" + userId) // while such a job is pending or running, a second send inserts nothing
            .maxAttempts(3)
            .groupKey("user-" + userId) // jobs of one group run one at a time, in order
            .header("trace-id", traceId)
            .build());
        boolean created = result.created(); // false when the dedup key was taken: jobId() is the existing job's

        // one statement for the whole collection (unnest of arrays), dedup keys respected
        BatchSendResult batch = queue.sendBatch("emails", payloads);
        queue.sendBatch("emails", List.of(JobRequest.of(mail, SendOptions.builder().dedupKey(id).build())));
        // end::options[]
    }

    void windows(QueueOperations queueTemplate, Object request, Object change) {
        // tag::windows[]
        // a second send with this key is a duplicate for 1 h after the first, even once that one has run
        queueTemplate.send("reports", request,
                SendOptions.builder().dedupKey("report-2026-11").dedupFor(Duration.ofHours(1)).build());
        // sends within 30 s of each other collapse into one job, which runs with the last payload once 30 s were quiet
        queueTemplate.send("search-index", change,
                SendOptions.builder().debounce("product-42", Duration.ofSeconds(30)).build());
        // end::windows[]
    }
}
