package io.pgqueue.internal.persistence;

import java.util.List;
import java.util.Set;

import io.pgqueue.model.DeadJob;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import org.jspecify.annotations.Nullable;

/**
 * What operating jobs needs of the job table: lookups, pages, cancellation, retry and purge of dead jobs. One of the ports of the job table ({@link JobTable}), each implemented by a class of its own.
 */
public interface JobAdminPort {

    /**
     * {@link Transition#CANCEL} of the scheduled and ready jobs among the ids (not those a transaction holds);
     * for the running ones, the cancellation is requested.
     */
    Cancellation cancel(long[] ids);

    /**
     * As {@link #cancel(long[])}, every live member of the batch that is not dead: first the cancellation of the
     * running ones is requested (committed on its own), then the others are cancelled.
     */
    Cancellation cancelBatchMembers(long batchId);

    /**
     * What {@link #cancel(long[])} did.
     *
     * @param cancelled ids of jobs finished as cancelled
     * @param requested ids of running jobs whose cancellation was requested
     */
    record Cancellation(Set<Long> cancelled, Set<Long> requested) {
    }

    /** {@link Transition#RETRY_DEAD} of the given dead jobs of the queue, or of all when {@code ids} is null. */
    int retryDead(String queue, long @Nullable [] ids);

    /** {@link Transition#PURGE} of up to {@code limit} dead jobs of the queue, of those given unless null. */
    int purgeDead(String queue, long @Nullable [] ids, int limit);

    /** A job by id: live from the job table, else finished from the history; null when neither has it. */
    @Nullable JobInfo job(long id);

    /** A page of jobs matching the query, newest first. */
    List<JobInfo> jobs(JobQuery query);

    /** A page of the queue's dead jobs, newest first. */
    /** A page of dead jobs; without content their payloads are null and their errors keep the first line. */
    List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content);
}
