package io.pgqueue;

import java.util.Objects;

/**
 * One element of a batch with its own options, e.g. its own dedup key:
 * {@code template.sendBatch("emails", List.of(JobRequest.of(mail, SendOptions.builder().dedupKey(id).build())))}.
 *
 * @param payload the job's payload, written as JSON
 * @param options how to send it
 */
public record JobRequest(Object payload, SendOptions options) {

    public JobRequest {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(options, "options");
    }

    public static JobRequest of(Object payload, SendOptions options) {
        return new JobRequest(payload, options);
    }
}
