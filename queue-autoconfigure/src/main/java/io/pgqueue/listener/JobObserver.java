package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;

import io.pgqueue.listener.error.FailureDecision;

/**
 * Callbacks on what listeners do with jobs, e.g. for metrics. Called on worker threads: keep them cheap. Each
 * callback gets the job as its listener sees it.
 */
public interface JobObserver {

    JobObserver NONE = new JobObserver() {
    };

    /** One observer that calls all of the given ones in order. */
    static JobObserver composite(List<JobObserver> observers) {
        if (observers.isEmpty()) {
            return NONE;
        }
        if (observers.size() == 1) {
            return observers.get(0);
        }
        List<JobObserver> all = List.copyOf(observers);
        return new JobObserver() {
            @Override
            public void started(JobContext job) {
                all.forEach((observer) -> observer.started(job));
            }

            @Override
            public void succeeded(JobContext job, Duration duration) {
                all.forEach((observer) -> observer.succeeded(job, duration));
            }

            @Override
            public void failed(JobContext job, Duration duration, Throwable error, FailureDecision decision) {
                all.forEach((observer) -> observer.failed(job, duration, error, decision));
            }

            @Override
            public void snoozed(JobContext job, Duration duration, Duration delay) {
                all.forEach((observer) -> observer.snoozed(job, duration, delay));
            }

            @Override
            public void cancelled(JobContext job, Duration duration) {
                all.forEach((observer) -> observer.cancelled(job, duration));
            }

            @Override
            public void stepCompleted(JobContext job, String step, Duration duration) {
                all.forEach((observer) -> observer.stepCompleted(job, step, duration));
            }
        };
    }

    /** A job was claimed and is about to run. */
    default void started(JobContext job) {
    }

    /** The handler returned normally after {@code duration}. */
    default void succeeded(JobContext job, Duration duration) {
    }

    /** The handler threw (or the payload could not be read) after {@code duration}. */
    default void failed(JobContext job, Duration duration, Throwable error, FailureDecision decision) {
    }

    /** The handler put the job off for {@code delay} after {@code duration}; the attempt does not count. */
    default void snoozed(JobContext job, Duration duration, Duration delay) {
    }

    /** The job's cancellation was requested while it ran (or before it started); it finishes as cancelled. */
    default void cancelled(JobContext job, Duration duration) {
    }

    /**
     * A durable step ran and was recorded after {@code duration} (its body and its checkpoint); a step replayed from
     * its stored result is not reported. In the handler's thread, between {@link #started} and the run's end.
     */
    default void stepCompleted(JobContext job, String step, Duration duration) {
    }
}
