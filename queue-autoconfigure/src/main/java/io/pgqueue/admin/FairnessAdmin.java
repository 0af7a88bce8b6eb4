package io.pgqueue.admin;

import java.util.List;

import io.pgqueue.model.FairnessKeyCounts;
import io.pgqueue.model.FairnessKeyInfo;

/**
 * Operating the fairness keys of fair queues: their weights, pausing one key, and their counts.
 * One role of {@link QueueAdmin}, which is all of them; inject the role a class needs.
 */
public interface FairnessAdmin {

    /**
     * Sets a fairness key's weight in a fair queue, cluster-wide and across restarts: it takes precedence over the
     * configured weight ({@code pgqueue.queues.<queue>.fairness.weights}) from the next claim on.
     */
    void setFairnessWeight(String queue, String key, double weight);

    /** Clears a weight set at run time: the configured (or default) weight applies again. */
    void clearFairnessWeight(String queue, String key);

    /** Holds back one fairness key's jobs in a fair queue, on every node; the queue's other keys keep running. */
    void pauseFairnessKey(String queue, String key);

    /** Lets a paused fairness key's jobs run again, at once (its pause earns it no extra share). */
    void resumeFairnessKey(String queue, String key);

    /**
     * A fair queue's keys, active ones first: weight set at run time, pause, ready (counted up to a bound) and
     * running jobs, and how long the next job has waited.
     */
    List<FairnessKeyInfo> fairnessKeys(String queue, int limit);

    /** Every fair queue's keys, counted by what they do (active, paused, idle). */
    List<FairnessKeyCounts> fairnessKeyCounts();
}
