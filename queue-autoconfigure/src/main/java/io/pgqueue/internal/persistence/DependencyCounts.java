package io.pgqueue.internal.persistence;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Folds the counts of satisfied edges that a completion left in {@code job_dependency_done} for children whose row
 * another transaction held ({@link WorkflowCascade#completed}), so that a fan-in's parents finishing together do
 * not commit one after the other on their child's row. The counts a statement left are folded once it committed
 * (outside a transaction, a LEASE acknowledgement, as soon as it returned; inside one, a TRANSACTIONAL handler's,
 * after that transaction's commit — a count of a transaction rolled back does not exist), on a thread of their own:
 * a fold waits for the child's row, and neither the acknowledgements nor a worker should wait with it. The thread
 * exists only while there is folding to do. Maintenance folds whatever is left ({@link #foldAny()}): counts whose
 * node stopped or crashed before folding them. Every fold is exact whoever runs it: it takes the counts out under
 * the child's row lock, and a count another fold took first is skipped.
 */
final class DependencyCounts {

    private static final Log logger = LogFactory.getLog(DependencyCounts.class);

    private static final long[] NONE = new long[0];

    private final Jdbc jdbc;

    private final Sql fold;

    /** Counts left by committed statements of this JVM, not folded yet. */
    private final Queue<Long> committed = new ConcurrentLinkedQueue<>();

    /** Whether a fold task is queued or running (it takes every count queued before it ends). */
    private final AtomicBoolean folding = new AtomicBoolean();

    /** One thread, started when there is something to fold and ended after a few idle seconds. */
    private final ThreadPoolExecutor folder;

    DependencyCounts(Jdbc jdbc, Sql fold) {
        this.jdbc = jdbc;
        this.fold = fold;
        this.folder = new ThreadPoolExecutor(0, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> {
            Thread thread = new Thread(task, "pgqueue-dependency-fold");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** A statement left these counts: folded once it committed (at once outside a transaction). */
    void left(long[] ids) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    foldLater(ids);
                }
            });
        }
        else {
            foldLater(ids);
        }
    }

    private void foldLater(long[] ids) {
        for (long id : ids) {
            committed.add(id);
        }
        if (folding.compareAndSet(false, true)) {
            folder.execute(this::foldCommitted);
        }
    }

    /** Folds the queued counts until none is left, then lets another task start. */
    private void foldCommitted() {
        do {
            long[] ids;
            while ((ids = take()).length > 0) {
                fold(ids);
            }
            folding.set(false);
            // a count queued after the last take and before the flag fell: this task goes on if nobody else did
        }
        while (!committed.isEmpty() && folding.compareAndSet(false, true));
    }

    private long[] take() {
        long[] ids = new long[Math.min(committed.size(), 1_000)];
        int taken = 0;
        Long id;
        while (taken < ids.length && (id = committed.poll()) != null) {
            ids[taken++] = id;
        }
        return (taken == ids.length) ? ids : java.util.Arrays.copyOf(ids, taken);
    }

    /** Folds up to a thousand counts left by anyone (maintenance); returns how many. */
    int foldAny() {
        return (int) jdbc.count(fold, (params) -> params.int8Array("deposits", NONE).bool("any", true));
    }

    private void fold(long[] ids) {
        try {
            jdbc.count(fold, (params) -> params.int8Array("deposits", ids).bool("any", false));
        }
        catch (RuntimeException ex) {
            // the counts stand in their table: maintenance folds them
            logger.warn("Could not fold " + ids.length + " count(s) of finished workflow parents now (maintenance "
                    + "will): " + ex.getMessage());
        }
    }
}
