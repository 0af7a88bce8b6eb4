package io.pgqueue.model;

/**
 * What a recurring job does about the ticks that passed while no node was running.
 */
public enum MissedTickPolicy {

    /** Enqueue one job for the latest missed tick, then carry on with the next future tick. */
    FIRE_ONCE,

    /** Enqueue nothing for ticks older than the grace period; carry on with the next future tick. */
    SKIP
}
