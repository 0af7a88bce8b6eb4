package io.pgqueue.listener;

/**
 * What a failed job that waits for its retry does to the later jobs of its group key.
 */
public enum GroupFailurePolicy {

    /** The group waits until the failed job succeeds or goes dead: strict order. */
    BLOCK,

    /** Later jobs of the group may run while the failed one waits for its retry. */
    SKIP
}
