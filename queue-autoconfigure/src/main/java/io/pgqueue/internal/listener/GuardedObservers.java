package io.pgqueue.internal.listener;

import java.time.Duration;

import io.pgqueue.internal.observe.ProcessObserver;
import io.pgqueue.listener.JobContext;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.error.FailureDecision;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Observers that cannot break a run: an application's {@link JobObserver} or an observation handler that
 * throws is logged, and the job's outcome is decided and recorded as if it had not been there. Without this,
 * an observer's exception escaped the run's error handling (a TRANSACTIONAL job ran again uncounted, a LEASE
 * container lost its worker).
 */
final class GuardedObservers {

    private static final Log logger = LogFactory.getLog(GuardedObservers.class);

    private GuardedObservers() {
    }

    static JobObserver of(JobObserver observer) {
        if (observer == JobObserver.NONE) {
            return observer;
        }
        return new JobObserver() {
            @Override
            public void started(JobContext job) {
                guard("started", job, () -> observer.started(job));
            }

            @Override
            public void succeeded(JobContext job, Duration duration) {
                guard("succeeded", job, () -> observer.succeeded(job, duration));
            }

            @Override
            public void failed(JobContext job, Duration duration, Throwable error, FailureDecision decision) {
                guard("failed", job, () -> observer.failed(job, duration, error, decision));
            }

            @Override
            public void snoozed(JobContext job, Duration duration, Duration delay) {
                guard("snoozed", job, () -> observer.snoozed(job, duration, delay));
            }

            @Override
            public void cancelled(JobContext job, Duration duration) {
                guard("cancelled", job, () -> observer.cancelled(job, duration));
            }

            @Override
            public void stepCompleted(JobContext job, String step, Duration duration) {
                guard("stepCompleted", job, () -> observer.stepCompleted(job, step, duration));
            }
        };
    }

    static ProcessObserver of(ProcessObserver observer) {
        if (observer == ProcessObserver.NONE) {
            return observer;
        }
        return (queue, mode, jobId, workflowId, batchId, attempt, headers, batch) -> {
            ProcessObserver.Observed observed;
            try {
                observed = observer.start(queue, mode, jobId, workflowId, batchId, attempt, headers, batch);
            }
            catch (RuntimeException ex) {
                warn("start", jobId, ex);
                return ProcessObserver.NOTHING;
            }
            return new ProcessObserver.Observed() {
                @Override
                public void outcome(String outcome, @Nullable Throwable error) {
                    guard("outcome", jobId, () -> observed.outcome(outcome, error));
                }

                @Override
                public void close() {
                    guard("close", jobId, observed::close);
                }
            };
        };
    }

    private static void guard(String event, JobContext job, Runnable call) {
        guard(event, job.id(), call);
    }

    private static void guard(String event, long jobId, Runnable call) {
        try {
            call.run();
        }
        catch (RuntimeException ex) {
            warn(event, jobId, ex);
        }
    }

    private static void warn(String event, long jobId, RuntimeException ex) {
        logger.warn("An observer failed on '" + event + "' of job " + jobId + "; the job's outcome is unaffected: " + ex,
                ex);
    }
}
