package io.pgqueue.admin;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.pgqueue.model.QueueCounts;
import io.pgqueue.model.QueueStats;

/**
 * Operating queues: their counts, pausing (stored in the database, honoured by every node's next claim) and the repair of counter drift.
 * One role of {@link QueueAdmin}, which is all of them; inject the role a class needs.
 */
public interface QueuesAdmin {

    /**
     * Every queue the counters know, and every queue a node listens to or a schedule sends to (with zero counts
     * until its first job), with counts, lag, pause state and the nodes listening; sorted by name.
     */
    List<QueueStats> queues();

    Optional<QueueStats> queue(String queue);

    void pause(String queue);

    /**
     * Lets the queue's jobs be claimed again; its listeners on every node are woken at once (when NOTIFY is
     * on), not at their next poll.
     */
    void resume(String queue);

    boolean isPaused(String queue);

    Set<String> pausedQueues();

    /**
     * Recomputes the state counts from the job table and repairs any drift (a full scan of the job table).
     * @return the drift found per queue, empty when the counters were exact
     */
    List<QueueCounts> reconcile();
}
