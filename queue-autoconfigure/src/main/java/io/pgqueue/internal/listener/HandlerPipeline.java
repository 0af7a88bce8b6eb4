package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import io.pgqueue.internal.listener.JobExecutor.Failure;
import io.pgqueue.internal.listener.JobExecutor.Outcome;
import io.pgqueue.internal.listener.JobExecutor.Succeeded;
import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.JobInterceptor;
import io.pgqueue.listener.error.JobTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A handler run as one ordered pipeline, the same for a single-job and a batch listener. From the outside in:
 * <ol>
 * <li>observation — the run in the scope of {@code pgqueue.process}, stopped with the outcome;</li>
 * <li>outcome — the handler's result made into each job's sealed {@link Outcome} (with the observer told and,
 * on a failure, the error handler's retry-or-dead decision), by {@link JobExecutor};</li>
 * <li>timeout — the handler's thread interrupted past the run's timeout, the result then a
 * {@link JobTimeoutException} whatever the handler did after the interruption;</li>
 * <li>log context — the MDC keys of the job (or batch) while the handler runs;</li>
 * <li>the application's {@link JobInterceptor}s, in their order;</li>
 * <li>the handler.</li>
 * </ol>
 * The inner steps see the handler's {@link Result}, the outer two the outcomes.
 */
final class HandlerPipeline {

    /**
     * One run.
     *
     * @param jobs the jobs it runs (a batch: those whose payloads could be read)
     * @param claimed every job of the claim, for the log context of a batch
     * @param payloads their payloads, read before the run for a batch; empty for one job (read by the handler
     * step, inside the run, so that its failure is the run's)
     * @param run the run's handler-thread bookkeeping (interruption, cancellation, timeout)
     * @param timeout the run's timeout, or null for none
     * @param batch whether a batch listener runs
     * @param startNanos when the run began, for the durations the observer is told
     */
    record Invocation(List<JobContextImpl> jobs, List<ClaimedJob> claimed,
            List<@Nullable Object> payloads, HandlerRun run, @Nullable Duration timeout, boolean batch,
            long startNanos) {

        JobContextImpl first() {
            return jobs.get(0);
        }
    }

    /**
     * What the handler did: returned a value or threw.
     *
     * @param value its return value, or null
     * @param error what it threw, or null
     */
    record Result(@Nullable Object value, @Nullable Throwable error) {
    }

    /** One step of the pipeline around the steps inside it. */
    @FunctionalInterface
    interface Step<T> {

        T around(Invocation invocation, Supplier<T> inner);
    }

    private final List<Step<List<Outcome>>> outer;

    private final BiFunction<Invocation, Result, List<Outcome>> outcomes;

    private final List<Step<Result>> inner;

    private final Function<Invocation, Result> handler;

    /**
     * @param outcomes the outcome step: the outcomes of an invocation's result
     * @param handler the innermost step: runs the handler
     */
    HandlerPipeline(ProcessObserver processObserver, String mode, BiFunction<Invocation, Result, List<Outcome>> outcomes,
            Function<Invocation, Result> handler) {
        this(processObserver, mode, outcomes, handler, List.of());
    }

    /**
     * @param interceptors the application's interceptors, outermost first, between the log context and the handler
     */
    HandlerPipeline(ProcessObserver processObserver, String mode, BiFunction<Invocation, Result, List<Outcome>> outcomes,
            Function<Invocation, Result> handler, List<JobInterceptor> interceptors) {
        this.outer = List.of(observation(processObserver, mode));
        this.outcomes = outcomes;
        List<Step<Result>> steps = new ArrayList<>(List.of(HandlerPipeline::timeout, HandlerPipeline::logContext));
        interceptors.forEach((interceptor) -> steps.add(intercepted(interceptor)));
        this.inner = List.copyOf(steps);
        this.handler = handler;
    }

    /** An application's interceptor as a step: what it returns or throws is the run's result. */
    private static Step<Result> intercepted(JobInterceptor interceptor) {
        return (invocation, inside) -> {
            InterceptedRun run = new InterceptedRun(invocation, inside);
            try {
                return new Result(interceptor.intercept(run), null);
            }
            catch (Throwable ex) {
                // an Error too, as from the handler: it must become the attempt's failure
                return new Result(null, ex);
            }
        };
    }

    /** The run an interceptor sees: {@link #proceed()} runs the rest of the chain once. */
    private static final class InterceptedRun implements JobInterceptor.JobRun {

        private final Invocation invocation;

        private final Supplier<Result> inside;

        private boolean proceeded;

        InterceptedRun(Invocation invocation, Supplier<Result> inside) {
            this.invocation = invocation;
            this.inside = inside;
        }

        @Override
        public String queue() {
            return invocation.first().queue();
        }

        @Override
        public List<JobContext> jobs() {
            return List.copyOf(invocation.jobs());
        }

        @Override
        public boolean batch() {
            return invocation.batch();
        }

        @Override
        public @Nullable Object proceed() throws Exception {
            if (proceeded) {
                throw new IllegalStateException("JobInterceptor called proceed() twice for job "
                        + invocation.first().job().id() + ": a handler runs once per attempt");
            }
            proceeded = true;
            Result result = inside.get();
            Throwable error = result.error();
            if (error == null) {
                return result.value();
            }
            if (error instanceof Exception exception) {
                throw exception;
            }
            if (error instanceof Error fatal) {
                throw fatal;
            }
            throw new IllegalStateException(error);
        }
    }

    /** Runs the invocation through every step. */
    List<Outcome> run(Invocation invocation) {
        Supplier<Result> result = chain(invocation, inner, () -> handler.apply(invocation));
        return chain(invocation, outer, () -> outcomes.apply(invocation, result.get())).get();
    }

    private static <T> Supplier<T> chain(Invocation invocation, List<Step<T>> steps, Supplier<T> last) {
        Supplier<T> next = last;
        for (int i = steps.size() - 1; i >= 0; i--) {
            Step<T> step = steps.get(i);
            Supplier<T> inside = next;
            next = () -> step.around(invocation, inside);
        }
        return next;
    }

    private static Step<List<Outcome>> observation(ProcessObserver processObserver, String mode) {
        return (invocation, inside) -> {
            JobContextImpl first = invocation.first();
            List<Supplier<Map<String, String>>> batchHeaders = invocation.batch()
                    ? invocation.jobs().stream().<Supplier<Map<String, String>>>map((job) -> job::headers).toList()
                    : List.of();
            try (ProcessObserver.Observed observed = processObserver.start(first.queue(), mode, first.job().id(),
                    first.job().workflowId(), first.job().batchId(), first.job().attempt(), first::headers,
                    batchHeaders)) {
                List<Outcome> outcomes = inside.get();
                Failure failure = firstFailure(outcomes);
                observed.outcome(invocation.batch() ? ((failure == null) ? "success" : "failure")
                        : name(outcomes.get(0)), (failure != null) ? failure.error() : null);
                return outcomes;
            }
        };
    }

    /** The first failure among the outcomes, or null (a loop: a stream pipeline per job showed in profiles). */
    private static @Nullable Failure firstFailure(List<Outcome> outcomes) {
        for (Outcome outcome : outcomes) {
            if (outcome instanceof Failure failure) {
                return failure;
            }
        }
        return null;
    }

    private static String name(Outcome outcome) {
        if (outcome instanceof Succeeded) {
            return "success";
        }
        if (outcome instanceof JobExecutor.Snoozed) {
            return "snoozed";
        }
        return (outcome instanceof JobExecutor.Cancelled) ? "cancelled" : "failure";
    }

    private static Result timeout(Invocation invocation, Supplier<Result> inside) {
        HandlerRun run = invocation.run();
        run.start(invocation.timeout());
        Result result;
        try {
            result = inside.get();
        }
        finally {
            run.finish();
        }
        if (!run.timedOut()) {
            return result;
        }
        JobTimeoutException timedOut = new JobTimeoutException(invocation.first().job().id(),
                Objects.requireNonNull(invocation.timeout()));
        if (result.error() != null) {
            timedOut.addSuppressed(result.error());
        }
        return new Result(null, timedOut);
    }

    private static Result logContext(Invocation invocation, Supplier<Result> inside) {
        try (JobLogContext context = invocation.batch() ? JobLogContext.ofBatch(invocation.claimed())
                : JobLogContext.of(invocation.first().job())) {
            return inside.get();
        }
    }
}
