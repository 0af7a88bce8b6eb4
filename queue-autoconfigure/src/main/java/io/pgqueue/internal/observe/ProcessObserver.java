package io.pgqueue.internal.observe;

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

    ProcessObserver NONE = (queue, mode, jobId, attempt, headers) -> NOTHING;

    /** Starts observing; the handler runs in its scope until {@link Observed#close()}. */
    Observed start(String queue, String mode, long jobId, int attempt, Supplier<Map<String, String>> headers);

    /** A running observation. */
    interface Observed extends AutoCloseable {

        /** What became of the run: success, failure, snoozed or cancelled, and the error if it failed. */
        void outcome(String outcome, @Nullable Throwable error);

        /** Stops the observation and leaves its scope. */
        @Override
        void close();
    }
}
