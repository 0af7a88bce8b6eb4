package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.function.Supplier;

import io.pgqueue.JobPayloadCodec;
import io.pgqueue.QueueOperations;
import io.pgqueue.internal.persistence.DurableRepository;
import io.pgqueue.listener.JobObserver;
import io.pgqueue.listener.adapter.MethodJobHandler;

/**
 * What the durable runs of one database's listeners share: the repository of steps, waits and events, the
 * template that spawns jobs, and the transactions steps run in. A plain job never touches it: a run's
 * {@link DurableRun} is made by its first durable call.
 *
 * @param childRecheck how often a job awaiting another one looks at it when no event told it the job finished
 * (a job that went dead by rescue, or was cancelled, tells nobody)
 * @param observer told of each step that ran (its duration)
 */
public record DurableRuns(DurableRepository repository, JobPayloadCodec codec, Supplier<? extends QueueOperations> template,
        Duration childRecheck, JobObserver observer) {

    public DurableRuns {
        observer = GuardedObservers.of(observer);
    }

    /**
     * @param transactional whether the run is a TRANSACTIONAL handler's (its steps' bodies run outside its
     * transaction)
     */
    DurableRun start(JobContextImpl context, MethodJobHandler handler, boolean transactional) {
        return new DurableRun(this, context, handler, transactional);
    }
}
