package io.pgqueue.model;


/**
 * A listener container of a node, as its last heartbeat reported it.
 *
 * @param id container id
 * @param queue the queue it consumes
 * @param mode its delivery mode
 * @param concurrency handlers it runs at once
 * @param batchSize jobs per claim
 * @param inFlight jobs it was running at that heartbeat
 * @param running whether it was running (not stopped, not failed)
 */
public record NodeContainer(String id, String queue, DeliveryMode mode, int concurrency, int batchSize, int inFlight,
        boolean running) {
}
