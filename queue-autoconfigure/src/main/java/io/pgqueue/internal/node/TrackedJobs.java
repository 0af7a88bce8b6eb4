package io.pgqueue.internal.node;

import java.util.Collection;
import java.util.List;

import io.pgqueue.internal.persistence.ProgressReport;


/**
 * The jobs one LEASE container is running, as its node's heartbeat sees them: their leases are renewed,
 * cancellations requested for them are passed on, and their handlers' progress is written.
 */
public interface TrackedJobs {

    /** The ids of the jobs running now (a live view). */
    Collection<Long> ids();

    /** The cancellation of this job (one of {@link #ids()}) was requested: stop its handler. */
    void cancellationRequested(long jobId);

    /** Progress reported since the last call, one report per job at most. */
    List<ProgressReport> takeProgress();
}
