package io.pgqueue.internal.persistence;

import java.util.List;

/**
 * How a TRANSACTIONAL claim is taken back, inside its transaction, when one of its jobs fails or snoozes: the
 * handlers' writes are rolled back to the claim's savepoint and, when the claim came before that savepoint
 * (so that handlers that succeed run in no subtransaction), its rows are restored
 * ({@link Transition#CLAIM_RESTORE}) from the claimed jobs and the rest of each row.
 *
 * @param rollsBack whether the transaction must roll back to the claim's savepoint
 * @param claimed the jobs to restore after that rollback (none when the savepoint came before the claim, which
 * the rollback then undoes)
 * @param rests each claimed row's other columns, as the claim returned them, aligned with {@code claimed}
 */
public record ClaimUndo(boolean rollsBack, List<ClaimedJob> claimed, List<String> rests) {

    /** Nothing to take back: the claim was taken back already, or its transaction rolled back whole. */
    public static final ClaimUndo NONE = new ClaimUndo(false, List.of(), List.of());

    /** The savepoint came before the claim: rolling back to it gives the jobs back. */
    public static final ClaimUndo SAVEPOINT = new ClaimUndo(true, List.of(), List.of());

    public ClaimUndo {
        claimed = List.copyOf(claimed);
        rests = List.copyOf(rests);
        if (claimed.size() != rests.size()) {
            throw new IllegalArgumentException("A row's rest for every claimed job");
        }
    }

    /** A claim before its savepoint, whose rows are restored from these jobs and rests. */
    static ClaimUndo restoring(List<ClaimedJob> claimed, List<String> rests) {
        return new ClaimUndo(true, claimed, rests);
    }

    /** Whether rows are put back after the rollback. */
    public boolean restores() {
        return rollsBack && !claimed.isEmpty();
    }
}
