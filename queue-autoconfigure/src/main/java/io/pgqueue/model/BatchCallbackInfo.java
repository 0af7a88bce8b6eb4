package io.pgqueue.model;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A batch's callback: the queue its job goes to and, once its event happened, that job.
 *
 * @param event what it fires on
 * @param queue the queue of its job
 * @param state {@code pending}, {@code fired} or {@code skipped} (the batch was cancelled first)
 * @param jobId its job once fired, else null
 * @param firedAt when it fired, else null
 */
public record BatchCallbackInfo(BatchEventType event, String queue, String state, @Nullable Long jobId,
        @Nullable Instant firedAt) {

    public boolean fired() {
        return jobId != null;
    }
}
