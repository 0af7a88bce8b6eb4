package io.pgqueue.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pgqueue.model.DeadJob;
import io.pgqueue.internal.lifecycle.JobRepository;
import io.pgqueue.internal.lifecycle.Repositories;

import org.springframework.context.ApplicationContext;

/**
 * Waits for queues in an application's tests, e.g. after an HTTP call that enqueues jobs:
 * <pre>{@code
 * QueueTestSupport.of(context).awaitDrained("emails", Duration.ofSeconds(10));
 * }</pre>
 * A queue is drained when it has no ready, running or due-but-not-yet-promoted job; jobs scheduled for later
 * and dead jobs do not count. Exact counts straight from the job table: meant for tests, not for production.
 */
public final class QueueTestSupport {

    private static final long POLL_MILLIS = 20;

    private final JobRepository store;

    private QueueTestSupport(JobRepository store) {
        this.store = store;
    }

    public static QueueTestSupport of(ApplicationContext context) {
        return new QueueTestSupport(context.getBean(Repositories.class).jobs());
    }

    /** Jobs of the queue that are ready, running, or scheduled and already due. */
    public long pending(String queue) {
        return store.pendingNow(queue);
    }

    /**
     * Waits until the queue is drained.
     * @throws AssertionError with the pending count when it is not drained in time
     */
    public void awaitDrained(String queue, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pending;
        while ((pending = pending(queue)) > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Queue '" + queue + "' still has " + pending + " pending job(s) after "
                        + timeout);
            }
            pause();
        }
    }

    /** Waits until every queue is drained. */
    public void awaitAllDrained(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> busy;
        while (!(busy = store.queuesWithPendingJobs()).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Queues " + busy + " still have pending jobs after " + timeout);
            }
            pause();
        }
    }

    /** The dead jobs of a queue, newest first (at most 1000). */
    public List<DeadJob> deadJobs(String queue) {
        return store.deadJobs(queue, 0, 1000, true);
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for queues", ex);
        }
    }
}
