package io.pgqueue.internal.persistence;

import java.time.Duration;

/**
 * The job history: finished jobs (completed, cancelled) kept for lookups and outputs while
 * {@code pgqueue.history.enabled}, and their retention. The rows arrive with the statements that finish jobs
 * (their {@link Transition.Cascade#HISTORY} cascade); everything else that reads or writes the history goes
 * through here.
 */
public interface HistoryRepository {

    /** Whether finished jobs are kept (history is on); if not, handlers' return values are not even written. */
    boolean enabled();

    /** Keeps a TRANSACTIONAL job's output in its history row (in the handler's transaction), when history is on. */
    void recordOutput(long id, String outputJson);

    /** Deletes up to {@code limit} history rows older than {@code retention}; returns how many. */
    int expire(Duration retention, int limit);
}
