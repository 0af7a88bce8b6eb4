package io.pgqueue.internal.persistence;

import java.util.List;

import io.pgqueue.model.FairnessKeyCounts;
import io.pgqueue.model.FairnessKeyInfo;
import org.jspecify.annotations.Nullable;

/** A fair queue's keys at run time: their weights and pauses, kept across restarts, and what they hold. */
public interface FairnessRepository {

    /** Sets (or, with null, clears) a key's weight, cluster-wide; the key needs no job yet. */
    void setWeight(String queue, String key, @Nullable Double weight);

    /** Holds back (or lets go) one key's jobs, cluster-wide. */
    void setPaused(String queue, String key, boolean paused);

    /** Up to {@code limit} keys of the queue, active ones first, then by key. */
    List<FairnessKeyInfo> keys(String queue, int limit);

    /** The key of the queue whose {@link FairnessKeyInfo#handle()} this is, or null when none has it. */
    @org.jspecify.annotations.Nullable String keyOfHandle(String queue, String handle);

    /** The keys of every queue that has any, counted by what they do, by queue. */
    List<FairnessKeyCounts> keyCounts();
}
