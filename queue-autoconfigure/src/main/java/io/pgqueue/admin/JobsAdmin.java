package io.pgqueue.admin;

import java.util.Collection;
import java.util.List;

import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.CancelResult;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.NoSuchJobException;

/**
 * Operating jobs: look one up, page through them, cancel, and retry or purge dead ones.
 * One role of {@link QueueAdmin}, which is all of them; inject the role a class needs.
 */
public interface JobsAdmin {

    /**
     * A job by id: a live one, or a finished one while the history keeps it.
     * @throws NoSuchJobException when there is none
     */
    JobInfo job(long jobId);

    /** A page of a queue's jobs matching the query, newest first; read every filter from an index. */
    JobPage jobs(JobQuery query);

    /**
     * Cancels a job. One that has not started finishes as cancelled at once (its dedup key and group are
     * released; kept in the history as cancelled when history is on). Of a running LEASE job, the
     * cancellation is requested: its node interrupts the handler within a heartbeat, and the job finishes as
     * cancelled whatever the handler does. Cancelled jobs never run again.
     * @throws NoSuchJobException when there is no such job
     * @throws IllegalStateException when the job already finished (nothing changes), is dead (retry or purge
     * it instead), or is running in a TRANSACTIONAL listener, whose transaction holds it
     */
    CancelResult cancel(long jobId);

    /**
     * Cancels every scheduled, ready and running job matching the query (its limit is the batch size of
     * each round; dead and finished jobs are not matched), as {@link #cancel(long)} does one.
     */
    BulkCancelResult cancel(JobQuery query);

    /** Dead jobs of a queue, newest first. */
    List<DeadJob> deadJobs(String queue, int offset, int limit);

    /**
     * Dead jobs of a queue, newest first; without content, for a list that shows no payloads, their payloads
     * are null and their errors keep the first line, and neither is read.
     */
    List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content);

    /** Makes one dead job ready again with fresh attempts; returns whether it was dead. */
    boolean retryDead(String queue, long jobId);

    /**
     * Makes the given dead jobs of the queue ready again with fresh attempts (one statement); returns how many
     * were dead. Ids of jobs that are not dead, or of another queue, are ignored.
     */
    int retryDead(String queue, Collection<Long> jobIds);

    /** Makes every dead job of the queue ready again; returns how many. */
    int retryAllDead(String queue);

    /**
     * Makes every dead job matching the query's filters ready again, a page (the query's limit) at a time;
     * returns how many. The query's states are ignored: only dead jobs are retried.
     */
    long retryDead(JobQuery query);

    /** Deletes one dead job; returns whether it existed. */
    boolean purgeDead(String queue, long jobId);

    /** Deletes the given dead jobs of the queue (one statement); returns how many. Other ids are ignored. */
    int purgeDead(String queue, Collection<Long> jobIds);

    /** Deletes every dead job of the queue in bounded batches; returns how many. */
    long purgeDead(String queue);

    /**
     * Deletes every dead job matching the query's filters, a page (the query's limit) at a time; returns how
     * many. The query's states are ignored: only dead jobs are deleted.
     */
    long purgeDead(JobQuery query);
}
