package io.pgqueue.internal.persistence;

import java.util.List;

/**
 * How a TRANSACTIONAL claim is taken back, inside its transaction, when one of its jobs fails or snoozes: the
 * handlers' writes are rolled back to the claim's savepoint and, when the claim came before that savepoint
 * (so that handlers that succeed run in no subtransaction), its rows are restored from their images.
 *
 * @param rollsBack whether the transaction must roll back to the claim's savepoint
 * @param rowImages the claimed rows as the claim deleted them, to restore after that rollback (empty when the
 * savepoint came before the claim, which the rollback then undoes)
 */
public record ClaimUndo(boolean rollsBack, List<String> rowImages) {

    /** Nothing to take back: the claim was taken back already, or its transaction rolled back whole. */
    public static final ClaimUndo NONE = new ClaimUndo(false, List.of());

    /** The savepoint came before the claim: rolling back to it gives the jobs back. */
    public static final ClaimUndo SAVEPOINT = new ClaimUndo(true, List.of());

    public ClaimUndo {
        rowImages = List.copyOf(rowImages);
    }

    /** A claim before its savepoint, whose rows are restored from these images. */
    static ClaimUndo restoring(List<String> rowImages) {
        return new ClaimUndo(true, rowImages);
    }

    /** Whether rows are put back after the rollback. */
    public boolean restores() {
        return rollsBack && !rowImages.isEmpty();
    }
}
