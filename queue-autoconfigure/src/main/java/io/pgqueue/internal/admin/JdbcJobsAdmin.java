package io.pgqueue.internal.admin;

import java.util.Collection;
import java.util.List;
import java.util.function.ToIntFunction;

import io.pgqueue.admin.JobsAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.persistence.JobAdminPort;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.CancelResult;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.model.NoSuchJobException;
import io.pgqueue.model.QueueNames;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Jobs: lookups and pages (pages from the listings' database, a replica when one is configured), cancellation, dead jobs.
 */
final class JdbcJobsAdmin implements JobsAdmin {

    private static final Log logger = LogFactory.getLog(QueueAdmin.class);

    /** Dead jobs deleted per statement by {@link #purgeDead(String)}: no long-running delete. */
    static final int PURGE_BATCH = 10_000;

    /** Attempts to cancel a job a transaction holds, before saying it runs in a TRANSACTIONAL listener. */
    private static final int CANCEL_TRIES = 6;

    private final JobAdminPort port;

    /** Where pages of jobs and dead jobs are read: the primary's port, or a replica's. */
    private final JobAdminPort listings;

    private final Wakeups wakeups;

    JdbcJobsAdmin(JobAdminPort port, JobAdminPort listings, Wakeups wakeups) {
        this.port = port;
        this.listings = listings;
        this.wakeups = wakeups;
    }

    /**
     * A job by id: a live one, or a finished one while the history keeps it.
     * @throws NoSuchJobException when there is none
     */
    @Override
    public JobInfo job(long jobId) {
        JobInfo job = port.job(jobId);
        if (job == null) {
            throw new NoSuchJobException(jobId);
        }
        return job;
    }

    /** A page of a queue's jobs matching the query, newest first; read every filter from an index. */
    @Override
    public JobPage jobs(JobQuery query) {
        List<JobInfo> jobs = listings.jobs(query);
        Long next = (jobs.size() == query.limit()) ? jobs.get(jobs.size() - 1).id() : null;
        return new JobPage(jobs, next);
    }

    /**
     * Cancels a job. One that has not started finishes as cancelled at once (its dedup key and group are
     * released; kept in the history as cancelled when history is on). Of a running LEASE job, the
     * cancellation is requested: its node interrupts the handler within a heartbeat, and the job finishes as
     * cancelled whatever the handler does. Cancelled jobs never run again.
     * @throws NoSuchJobException when there is no such job
     * @throws IllegalStateException when the job already finished (nothing changes), is dead (retry or purge
     * it instead), or is running in a TRANSACTIONAL listener, whose transaction holds it
     */
    @Override
    public CancelResult cancel(long jobId) {
        long backoff = 20;
        for (int tries = 1;; tries++) {
            JobAdminPort.Cancellation cancellation = port.cancel(new long[] { jobId });
            if (cancellation.cancelled().contains(jobId)) {
                logger.info("Job " + jobId + " cancelled");
                return CancelResult.CANCELLED;
            }
            if (cancellation.requested().contains(jobId)) {
                logger.info("Cancellation of running job " + jobId + " requested");
                wakeups.cancelRequested(jobId);
                return CancelResult.CANCEL_REQUESTED;
            }
            JobInfo job = job(jobId);
            if (job.state().isFinished()) {
                throw new IllegalStateException("Job " + jobId + " has already finished (" + job.state().value()
                        + "): nothing to cancel");
            }
            if (job.state() == JobState.DEAD) {
                throw new IllegalStateException("Job " + jobId + " is dead and will not run unless retried: "
                        + "purge it to remove it");
            }
            if (tries == CANCEL_TRIES) {
                throw new IllegalStateException("Job " + jobId + " is running in a TRANSACTIONAL listener, whose "
                        + "transaction holds it: it cannot be cancelled while it runs (it commits or rolls back "
                        + "with that transaction)");
            }
            // held for a moment (a claim, a state change), or by a TRANSACTIONAL handler's transaction
            pause(backoff);
            backoff *= 2;
        }
    }

    /**
     * Cancels every scheduled, ready and running job matching the query (its limit is the batch size of
     * each round; dead and finished jobs are not matched), as {@link #cancel(long)} does one.
     */
    @Override
    public BulkCancelResult cancel(JobQuery query) {
        JobQuery.Builder cancellable = query.toBuilder();
        List<JobState> states = query.liveStates().stream().filter((state) -> state != JobState.DEAD).toList();
        if (states.isEmpty()) {
            return new BulkCancelResult(0, 0, 0);
        }
        cancellable.states(states.toArray(JobState[]::new)).withoutContent();
        JobQuery page = cancellable.build();
        long cancelled = 0;
        long requested = 0;
        long skipped = 0;
        while (true) {
            List<JobInfo> jobs = port.jobs(page);
            if (jobs.isEmpty()) {
                break;
            }
            JobAdminPort.Cancellation cancellation = port
                .cancel(jobs.stream().mapToLong(JobInfo::id).toArray());
            cancelled += cancellation.cancelled().size();
            requested += cancellation.requested().size();
            wakeups.cancelRequested(cancellation.requested());
            skipped += jobs.size() - cancellation.cancelled().size() - cancellation.requested().size();
            if (jobs.size() < page.limit()) {
                break;
            }
            page = page.after(jobs.get(jobs.size() - 1).id());
        }
        logger.info("Cancelled " + cancelled + " job(s) of queue '" + query.queue() + "', requested the cancellation "
                + "of " + requested + " running, skipped " + skipped);
        return new BulkCancelResult(cancelled, requested, skipped);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while cancelling", ex);
        }
    }

    /** Dead jobs of a queue, newest first. */
    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit) {
        return deadJobs(queue, offset, limit, true);
    }

    /**
     * Dead jobs of a queue, newest first; without content, for a list that shows no payloads, their payloads
     * are null and their errors keep the first line, and neither is read.
     */
    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content) {
        if (offset < 0 || limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("offset must be >= 0 and limit between 1 and 1000");
        }
        return listings.deadJobs(QueueNames.validate(queue), offset, limit, content);
    }

    /** Makes one dead job ready again with fresh attempts; returns whether it was dead. */
    @Override
    public boolean retryDead(String queue, long jobId) {
        return ready(queue, port.retryDead(QueueNames.validate(queue), new long[] { jobId })) > 0;
    }

    /**
     * Makes the given dead jobs of the queue ready again with fresh attempts (one statement); returns how many
     * were dead. Ids of jobs that are not dead, or of another queue, are ignored.
     */
    @Override
    public int retryDead(String queue, Collection<Long> jobIds) {
        return jobIds.isEmpty() ? 0 : ready(queue, port.retryDead(QueueNames.validate(queue), ids(jobIds)));
    }

    /** Makes every dead job of the queue ready again; returns how many. */
    @Override
    public int retryAllDead(String queue) {
        return ready(queue, port.retryDead(QueueNames.validate(queue), null));
    }

    /**
     * Makes every dead job matching the query's filters ready again, a page (the query's limit) at a time;
     * returns how many. The query's states are ignored: only dead jobs are retried.
     */
    @Override
    public long retryDead(JobQuery query) {
        long retried = forEachDeadPage(query, (ids) -> ready(query.queue(), port.retryDead(query.queue(), ids)));
        logger.info("Retried " + retried + " dead job(s) of queue '" + query.queue() + "' matching " + query);
        return retried;
    }

    /** Deletes one dead job; returns whether it existed. */
    @Override
    public boolean purgeDead(String queue, long jobId) {
        return port.purgeDead(QueueNames.validate(queue), new long[] { jobId }, 1) > 0;
    }

    /** Deletes the given dead jobs of the queue (one statement); returns how many. Other ids are ignored. */
    @Override
    public int purgeDead(String queue, Collection<Long> jobIds) {
        return jobIds.isEmpty() ? 0
                : port.purgeDead(QueueNames.validate(queue), ids(jobIds), jobIds.size());
    }

    /** Deletes every dead job of the queue in bounded batches; returns how many. */
    @Override
    public long purgeDead(String queue) {
        QueueNames.validate(queue);
        long purged = 0;
        int batch;
        do {
            batch = port.purgeDead(queue, null, PURGE_BATCH);
            purged += batch;
        }
        while (batch == PURGE_BATCH);
        return purged;
    }

    /**
     * Deletes every dead job matching the query's filters, a page (the query's limit) at a time; returns how
     * many. The query's states are ignored: only dead jobs are deleted.
     */
    @Override
    public long purgeDead(JobQuery query) {
        long purged = forEachDeadPage(query, (ids) -> port.purgeDead(query.queue(), ids, ids.length));
        logger.info("Purged " + purged + " dead job(s) of queue '" + query.queue() + "' matching " + query);
        return purged;
    }

    /**
     * Applies an operation to the dead jobs matching the query, page by page. Each operation takes its page's
     * jobs out of the dead state, so the next page starts again from the newest dead job left; a page whose
     * jobs all stayed (e.g. held by a live job's dedup key) moves the cursor past them.
     */
    private long forEachDeadPage(JobQuery query, ToIntFunction<long[]> operation) {
        JobQuery page = query.toBuilder().states(JobState.DEAD).withoutContent().build();
        long done = 0;
        while (true) {
            List<JobInfo> jobs = port.jobs(page);
            if (jobs.isEmpty()) {
                return done;
            }
            done += operation.applyAsInt(jobs.stream().mapToLong(JobInfo::id).toArray());
            if (jobs.size() < page.limit()) {
                return done;
            }
            // always on below this page: a retried job that died again at once keeps its id, and must not be
            // found, and retried, again and again
            page = page.after(jobs.get(jobs.size() - 1).id());
        }
    }

    /** Retried dead jobs are ready: their listeners are woken as for new ones. */
    private int ready(String queue, int retried) {
        if (retried > 0) {
            wakeups.jobsReady(queue);
        }
        return retried;
    }

    private static long[] ids(Collection<Long> jobIds) {
        return jobIds.stream().mapToLong(Long::longValue).toArray();
    }
}
