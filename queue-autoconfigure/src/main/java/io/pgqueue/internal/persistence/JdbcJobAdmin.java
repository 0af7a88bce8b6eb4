package io.pgqueue.internal.persistence;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.pgqueue.model.DeadJob;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job table's {@link JobAdminPort}: lookups and pages, cancellation, retry and purge of dead jobs.
 */
final class JdbcJobAdmin implements JobAdminPort {

    private final Jdbc jdbc;

    private final FinishStatements finishes;

    private final JobLookups lookups;

    /** A read beside the transaction on this thread (suspended meanwhile), on a connection of its own. */
    private final TransactionTemplate besideTransaction;

    JdbcJobAdmin(Jdbc jdbc, FinishStatements finishes, JobLookups lookups, TransactionTemplate besideTransaction) {
        this.jdbc = jdbc;
        this.finishes = finishes;
        this.lookups = lookups;
        this.besideTransaction = besideTransaction;
    }

    @Override
    public Cancellation cancel(long[] ids) {
        return cancellation(finishes.cancel, (params) -> params.int8Array("ids", ids));
    }

    @Override
    public Cancellation cancelBatchMembers(long batchId) {
        List<Long> requested = jdbc.query(finishes.requestBatchCancel, (params) -> params.int8("batch_id", batchId),
                (row) -> row.getLong(1));
        Cancellation cancelled = cancellation(finishes.cancelBatchMembers, (params) -> params.int8("batch_id", batchId));
        return new Cancellation(cancelled.cancelled(), Set.copyOf(requested));
    }

    private Cancellation cancellation(Sql statement, Jdbc.Binder binder) {
        List<long[]> rows = jdbc.query(statement, binder,
                (row) -> new long[] { row.getLong("id"), row.getBoolean("finished") ? 1 : 0 });
        Set<Long> finished = new HashSet<>();
        Set<Long> requested = new HashSet<>();
        rows.forEach((row) -> ((row[1] == 1) ? finished : requested).add(row[0]));
        return new Cancellation(finished, requested);
    }

    /**
     * When a live job takes a dedup key concurrently, the jobs are retried one by one and the one that
     * collides stays dead.
     */
    @Override
    public int retryDead(String queue, long @Nullable [] ids) {
        try {
            return (int) jdbc.count(finishes.retryDead, (params) -> params.text("queue", queue).int8Array("ids", ids));
        }
        catch (DuplicateKeyException ex) {
            if (ids != null && ids.length == 1) {
                return 0;
            }
            List<Long> dead = (ids != null) ? Arrays.stream(ids).boxed().toList()
                    : jdbc.query(lookups.deadIds(), (params) -> params.text("queue", queue), (row) -> row.getLong(1));
            int retried = 0;
            for (Long deadId : dead) {
                retried += retryDead(queue, new long[] { deadId });
            }
            return retried;
        }
    }

    @Override
    public int purgeDead(String queue, long @Nullable [] ids, int limit) {
        return (int) jdbc.count(finishes.purgeDead,
                (params) -> params.text("queue", queue).int8Array("ids", ids).int4("limit", limit));
    }

    @Override
    public @Nullable JobInfo job(long id) {
        JobInfo found = lookUp(id);
        ClaimedJob claimedHere = TransactionalClaims.claimedHere(jdbc.dataSource(), id);
        if (claimedHere == null || (found != null && !found.state().isFinished())) {
            // not claimed by this thread's transaction, or put back in it (its handler failed)
            return found;
        }
        // deleted (or archived as completed) by this thread's own claim while its handler runs: the row as it
        // was committed, which other transactions still see, as the claim took it
        JobInfo committed = besideTransaction.execute((status) -> lookUp(id));
        if (committed == null) {
            return found;
        }
        return new JobInfo(id, committed.queue(), JobState.RUNNING, committed.payload(), committed.payloadType(),
                committed.headers(), claimedHere.attempt(), claimedHere.maxAttempts(), committed.priority(),
                committed.runAt(), committed.enqueuedAt(), claimedHere.claimedAt(), null, committed.lastError(), null,
                null, false, committed.groupKey(), committed.dedupKey(), committed.timeoutMillis(), null, null,
                committed.workflowId(), committed.batchId(), committed.fairnessKey());
    }

    private @Nullable JobInfo lookUp(long id) {
        List<JobInfo> found = jdbc.query(lookups.byId(), (params) -> params.int8("id", id), JobLookups::read);
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public List<JobInfo> jobs(JobQuery query) {
        return jdbc.query(lookups.matching(query), (params) -> lookups.bind(params, query), JobLookups::read);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content) {
        return jdbc.query(lookups.deadJobs(content), (params) -> params.text("queue", queue).int4("offset", offset).int4("limit", limit),
                (row) -> new DeadJob(row.getLong("id"), row.getString("queue"), row.getInt("attempts"),
                        row.getString("last_error"), row.getString("payload"), row.getString("payload_type"),
                        row.getTimestamp("created_at").toInstant()));
    }
}
