package io.pgqueue.internal.node;

import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

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

    /**
     * The latest progress a handler reported.
     *
     * @param jobId the job
     * @param attempt the attempt that reported it
     * @param percent 0 to 100
     * @param message what the handler is doing, or null
     */
    record ProgressReport(long jobId, int attempt, short percent, @Nullable String message) {
    }
}
