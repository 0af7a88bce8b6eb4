package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The job history: finished jobs (completed, cancelled) kept for lookups and outputs while
 * {@code pgqueue.history.enabled}, and their retention. The rows arrive with the statements that finish jobs
 * (their {@link Transition.Cascade#HISTORY} cascade); everything else that reads or writes the history goes
 * through here. The table is range-partitioned by finish time: retention drops whole partitions.
 */
public interface HistoryRepository {

    /** Whether finished jobs are kept (history is on); if not, handlers' return values are not even written. */
    boolean enabled();

    /**
     * Keeps the outputs of TRANSACTIONAL jobs whose handlers all succeeded in their history rows, which their
     * claim wrote in this transaction, when history is on: one statement at the end of the batch, after releasing
     * the claim's savepoint, so that returning an output costs the handlers' transaction no subtransaction.
     * Returns whether it ran, and so released the savepoint (not when history is off or there are no outputs).
     */
    boolean recordOutputs(long[] ids, String[] outputsJson);

    /**
     * Dates the history rows that this transaction's TRANSACTIONAL claim wrote (dated at the transaction's start)
     * at the moment each job's handler finished, given in microseconds after that start, moving each row to the
     * partition of its finish. The container calls it only for handlers that finished a second or more after the
     * claim, so a claim of short jobs pays no statement for it.
     */
    void redate(long[] ids, long[] finishedAfterMicros);

    /**
     * Deletes up to {@code limit} rows older than {@code retention} from the default partition, where rows land
     * only when their partition was missing; returns how many. Every other row leaves with its partition.
     */
    int expire(Duration retention, int limit);

    /**
     * Creates the partitions that cover up to {@code ahead} intervals past now and drops those wholly older
     * than {@code retention}, one node at a time, each change under a short lock timeout (a change that cannot
     * get its lock is left to the next pass); analyses the partitioned table when its partitions changed or
     * when it was last analysed longer than {@code analyzeEvery} ago by this node.
     */
    PartitionUpkeep maintainPartitions(PartitionPlan plan);

    /** The partitions, oldest first, the default one last. */
    List<HistoryPartition> partitions();

    /**
     * How the history is partitioned.
     *
     * @param interval the span of one partition, aligned to the UTC epoch (whole hours, dividing a day, or whole days)
     * @param ahead how many partitions past the current one exist at any time
     * @param retention how long finished jobs are kept: a partition ending before now minus this is dropped
     * @param analyzeEvery how often the partitioned table is analysed when its partitions did not change
     */
    record PartitionPlan(Duration interval, int ahead, Duration retention, Duration analyzeEvery) {
    }

    /**
     * What one upkeep pass did.
     *
     * @param created partitions created
     * @param dropped partitions dropped
     * @param deferred changes left to a later pass (a lock not granted in time, or another node at work)
     * @param analyzed whether the partitioned table was analysed
     */
    record PartitionUpkeep(int created, int dropped, int deferred, boolean analyzed) {
    }

    /**
     * One partition of the history.
     *
     * @param name the table's name
     * @param from the first finish time it holds, or null for the first partition (everything before) and the default
     * @param to the finish time it holds rows up to (exclusive), or null for the default partition
     */
    record HistoryPartition(String name, @Nullable Instant from, @Nullable Instant to) {

        public boolean isDefault() {
            return to == null;
        }
    }
}
