package io.pgqueue.batch;

import java.util.Map;

import io.pgqueue.model.BatchEventType;

/**
 * The payload of a batch callback's job: which batch, what happened, and the properties the batch was opened
 * with. A callback's listener takes it as its payload parameter.
 *
 * @param batchId the batch
 * @param batchName its name
 * @param event what happened
 * @param properties the batch's properties
 */
public record BatchEvent(long batchId, String batchName, BatchEventType event, Map<String, String> properties) {

    public BatchEvent {
        properties = (properties != null) ? Map.copyOf(properties) : Map.of();
    }
}
