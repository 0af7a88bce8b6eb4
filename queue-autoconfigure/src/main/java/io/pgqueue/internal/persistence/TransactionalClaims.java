package io.pgqueue.internal.persistence;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The jobs a TRANSACTIONAL claim took in the transaction running on this thread. The claim deleted their rows
 * in that transaction (and, with history on, wrote them as completed), so a lookup that joins it would find them
 * gone or finished while their handlers run; lookups ask here first and answer such a job as running.
 */
final class TransactionalClaims {

    /** The key of a DataSource's claimed jobs among the transaction's resources. */
    private record Key(DataSource dataSource) {
    }

    private TransactionalClaims() {
    }

    /** Keeps the claimed jobs with the transaction running on this thread on {@code dataSource}, until it ends. */
    static void claimed(DataSource dataSource, List<ClaimedJob> jobs) {
        if (jobs.isEmpty() || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        Key key = new Key(dataSource);
        @SuppressWarnings("unchecked")
        Map<Long, ClaimedJob> claimed = (Map<Long, ClaimedJob>) TransactionSynchronizationManager.getResource(key);
        if (claimed == null) {
            claimed = new HashMap<>();
            TransactionSynchronizationManager.bindResource(key, claimed);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    TransactionSynchronizationManager.unbindResourceIfPossible(key);
                }
            });
        }
        for (ClaimedJob job : jobs) {
            claimed.put(job.id(), job);
        }
    }

    /** The job if the transaction running on this thread claimed it on {@code dataSource}, else null. */
    static @Nullable ClaimedJob claimedHere(DataSource dataSource, long id) {
        @SuppressWarnings("unchecked")
        Map<Long, ClaimedJob> claimed = (Map<Long, ClaimedJob>) TransactionSynchronizationManager
            .getResource(new Key(dataSource));
        return (claimed != null) ? claimed.get(id) : null;
    }
}
