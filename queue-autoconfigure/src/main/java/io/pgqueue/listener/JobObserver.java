package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;

import io.pgqueue.listener.error.FailureDecision;
import io.pgqueue.store.ClaimedJob;

/**
 * Callbacks on what listeners do with jobs, e.g. for metrics. Called on worker threads: keep them cheap.
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
            public void started(ClaimedJob job) {
                all.forEach((observer) -> observer.started(job));
            }

            @Override
            public void succeeded(ClaimedJob job, Duration duration) {
                all.forEach((observer) -> observer.succeeded(job, duration));
            }

            @Override
            public void failed(ClaimedJob job, Duration duration, Throwable error, FailureDecision decision) {
                all.forEach((observer) -> observer.failed(job, duration, error, decision));
            }
        };
    }

    /** A job was claimed and is about to run. */
    default void started(ClaimedJob job) {
    }

    /** The handler returned normally after {@code duration}. */
    default void succeeded(ClaimedJob job, Duration duration) {
    }

    /** The handler threw (or the payload could not be read) after {@code duration}. */
    default void failed(ClaimedJob job, Duration duration, Throwable error, FailureDecision decision) {
    }
}
