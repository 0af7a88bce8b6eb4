package io.pgqueue.internal.admin;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.pgqueue.admin.BatchesAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.persistence.BatchRepository;
import io.pgqueue.internal.persistence.JobAdminPort;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchMemberInfo;
import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.BulkCancelResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Batches: lookups, listings (from the listings' database, a replica when one is configured), cancellation.
 */
final class JdbcBatchesAdmin implements BatchesAdmin {

    private static final Log logger = LogFactory.getLog(QueueAdmin.class);

    private final BatchRepository batches;

    /** Where listings and member pages are read: the primary's repository, or a replica's. */
    private final BatchRepository listings;

    private final JobAdminPort jobs;

    private final Wakeups wakeups;

    JdbcBatchesAdmin(BatchRepository batches, BatchRepository listings, JobAdminPort jobs, Wakeups wakeups) {
        this.batches = batches;
        this.listings = listings;
        this.jobs = jobs;
        this.wakeups = wakeups;
    }

    @Override
    public Optional<BatchInfo> batch(long batchId) {
        return Optional.ofNullable(batches.batch(batchId));
    }

    @Override
    public Map<BatchState, Long> batchesByState() {
        return CountsByState.of(BatchState.class, batches.countsByState(), BatchState::of);
    }

    @Override
    public List<BatchInfo> batches(BatchQuery query) {
        return listings.batches(query);
    }

    @Override
    public List<BatchMemberInfo> batchMembers(long batchId, long afterJobId, int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be between 1 and 10000: " + limit);
        }
        return listings.members(batchId, afterJobId, limit);
    }

    @Override
    public BulkCancelResult cancelBatch(long batchId) {
        String was = batches.markCancelled(batchId);
        if (was == null) {
            return new BulkCancelResult(0, 0, 0);
        }
        if ("open".equals(was)) {
            batches.sealCancelled(batchId);
        }
        JobAdminPort.Cancellation cancellation = jobs.cancelBatchMembers(batchId);
        wakeups.cancelRequested(cancellation.requested());
        logger.info("Batch " + batchId + " cancelled: " + cancellation.cancelled().size() + " member(s) cancelled, "
                + cancellation.requested().size() + " running member(s) asked to cancel");
        return new BulkCancelResult(cancellation.cancelled().size(), cancellation.requested().size(), 0);
    }
}
