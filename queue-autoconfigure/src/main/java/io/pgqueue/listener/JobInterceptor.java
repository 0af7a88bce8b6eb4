package io.pgqueue.listener;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Runs around each handler run, as Spring Kafka's {@code RecordInterceptor} does around a record: a single-job
 * listener's call with its job, or a batch listener's call with its batch. For a concern every handler would
 * otherwise repeat — a tenant or security context taken from the job's headers, a metric, a log field.
 * <p>
 * Declare interceptors as beans; they apply to every listener, nested in their order ({@code @Order} or
 * {@link org.springframework.core.Ordered}: the lowest order outermost). They run on the handler's thread inside
 * pgqueue's own steps: the run's observation (trace) and its log context (MDC) are already there, the
 * handler's timeout counts their time, and in TRANSACTIONAL mode they run in the job's transaction.
 * <p>
 * What {@link #intercept} returns or throws is the run's result: call {@link JobRun#proceed()} and return what it
 * returns (the handler's return value) or let what it throws pass. An exception thrown here fails the attempt as
 * the handler's would (retried or dead by the listener's policy); an interceptor that catches the handler's
 * exception and returns makes the run a success; one that does not call {@code proceed()} skips the handler,
 * and the job counts as done.
 */
@FunctionalInterface
public interface JobInterceptor {

    /**
     * Runs around one handler run.
     *
     * @param run the run: its jobs, and the rest of the chain
     * @return the run's result, normally {@code run.proceed()}'s
     * @throws Exception to fail the run's attempt
     */
    @Nullable Object intercept(JobRun run) throws Exception;

    /** One handler run, as an interceptor sees it. */
    interface JobRun {

        /** The queue the listener consumes. */
        String queue();

        /** The run's jobs: one for a single-job listener, the batch's for a batch listener. */
        List<JobContext> jobs();

        /** Whether a batch listener runs. */
        boolean batch();

        /**
         * Runs the rest of the chain (the next interceptor, or the handler) and returns what the handler returned,
         * or throws what it threw. Call it at most once.
         */
        @Nullable Object proceed() throws Exception;
    }
}
