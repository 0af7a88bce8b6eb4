package io.pgqueue.model;

/**
 * How many fairness keys a queue has, by what they are doing.
 *
 * @param queue the queue
 * @param active keys with ready or running jobs, not paused
 * @param paused keys held back
 * @param idle keys with no ready or running job (kept for their weights and pauses)
 */
public record FairnessKeyCounts(String queue, long active, long paused, long idle) {
}
