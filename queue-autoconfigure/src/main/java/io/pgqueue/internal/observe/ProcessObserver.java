package io.pgqueue.internal.observe;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/** Observes a handler's run on a job (or a batch): started before the handler, stopped with its outcome. */
public interface ProcessObserver {

    Observed NOTHING = new Observed() {
        @Override
        public void outcome(String outcome, @Nullable Throwable error) {
        }

        @Override
        public void close() {
        }
    };

    ProcessObserver NONE = (queue, mode, jobId, workflowId, batchId, attempt, headers, batch) -> NOTHING;

    /**
     * Starts observing; the handler runs in its scope until {@link Observed#close()}.
     * @param workflowId the workflow the job is a node of, or null
     * @param batchId the batch the job is a member of, or null
     * @param headers the job's headers (a batch: its first job's)
     * @param batch each job's headers, for a batch listener's run; empty for one job
     */
    Observed start(String queue, String mode, long jobId, @Nullable Long workflowId, @Nullable Long batchId, int attempt,
            Supplier<Map<String, String>> headers,
            List<Supplier<Map<String, String>>> batch);

    /** The same observer for the runs of one of several databases' listeners: their observations name it. */
    default ProcessObserver withDatabase(String database) {
        return this;
    }

    /** A running observation. */
    interface Observed extends AutoCloseable {

        /** What became of the run: success, failure, snoozed or cancelled, and the error if it failed. */
        void outcome(String outcome, @Nullable Throwable error);

        /** Stops the observation and leaves its scope. */
        @Override
        void close();
    }
}
