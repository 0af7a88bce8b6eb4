package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.internal.persistence.Completion;
import io.pgqueue.internal.persistence.JobEnginePort;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;

/**
 * Deletes finished LEASE jobs in batches without delaying them: one thread flushes whatever has accumulated
 * while the previous flush ran, so an idle system acknowledges each job at once and a busy one sends many
 * ids per statement. While the database is unreachable a batch is retried; a batch the database refuses
 * for another reason is split until the rows it refuses are isolated, and those are left to their leases
 * (they are rescued like any job whose node lost it), so one bad row never holds back the others. The
 * pending list is bounded: when it is full, finishing workers wait, and no more jobs are claimed.
 * <p>
 * Workflow nodes and batch members are acknowledged in a lane of their own, with a thread started on first
 * use: their cascades lock rows that other transactions hold too (a transaction adding members to a batch holds
 * its shards until it commits), and plain jobs' acknowledgements must not wait behind them. A finished job stays
 * {@link #unacknowledged()} until its acknowledgement committed (or was given up), and its lease is renewed as
 * long: a slow acknowledgement never lets another node rescue and run the job again.
 */
final class AckBatcher {

    private static final Log logger = LogFactory.getLog(AckBatcher.class);

    private static final int MAX_BATCH = 1000;

    /** Finished jobs waiting for their acknowledgement at most, per lane. */
    static final int MAX_PENDING = 10_000;

    private final JobEnginePort jobs;

    private final UUID node;

    private final String name;

    /** Plain jobs. */
    private final Lane plain;

    /** Workflow nodes and batch members, whose acknowledgements carry cascades. */
    private final Lane cascading;

    /** Finished jobs whose acknowledgement has not committed yet. */
    private final Set<Long> unacknowledged = ConcurrentHashMap.newKeySet();

    private volatile boolean running;

    /** Told after acknowledgements committed (or were given up): their jobs no longer run in the database. */
    private final Runnable acknowledged;

    AckBatcher(JobEnginePort jobs, UUID node, String name, Runnable acknowledged) {
        this.jobs = jobs;
        this.acknowledged = acknowledged;
        this.node = node;
        this.name = name;
        this.plain = new Lane(name);
        this.cascading = new Lane(name + "-cascades");
    }

    synchronized void start() {
        running = true;
        plain.start();
    }

    /** Queues a finished job for deletion; waits while its lane's pending list is full. */
    void acknowledge(ClaimedJob job, @Nullable String outputJson) {
        Lane lane = job.cascades().any() ? cascading : plain;
        if (lane == cascading && !cascading.started()) {
            synchronized (this) {
                if (running && !cascading.started()) {
                    cascading.start();
                }
            }
        }
        unacknowledged.add(job.id());
        try {
            lane.pending.put(Completion.of(job, outputJson));
        }
        catch (InterruptedException ex) {
            // shutting down: the job keeps its lease and is rescued if nobody acknowledges it
            unacknowledged.remove(job.id());
            Thread.currentThread().interrupt();
        }
    }

    /** The finished jobs whose acknowledgement has not committed yet (a live view): their leases are renewed. */
    Collection<Long> unacknowledged() {
        return unacknowledged;
    }

    /** Whether the flusher threads are alive (they should be from start to stop). */
    boolean isAlive() {
        return plain.isAlive() && (!cascading.started() || cascading.isAlive());
    }

    /** Flushes what is pending, waiting at most {@code timeout}, and stops the flusher threads. */
    synchronized void stop(Duration timeout) throws InterruptedException {
        running = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        plain.stop(deadline);
        cascading.stop(deadline);
    }

    /** One pending list and the thread that flushes it. */
    private final class Lane {

        final LinkedBlockingQueue<Completion> pending = new LinkedBlockingQueue<>(MAX_PENDING);

        private final String threadName;

        private volatile @Nullable Thread flusher;

        Lane(String threadName) {
            this.threadName = threadName;
        }

        boolean started() {
            return flusher != null;
        }

        boolean isAlive() {
            Thread thread = flusher;
            return thread != null && thread.isAlive();
        }

        void start() {
            Thread thread = new Thread(this::flushLoop, threadName);
            thread.setDaemon(true);
            flusher = thread;
            thread.start();
        }

        void stop(long deadlineNanos) throws InterruptedException {
            Thread thread = flusher;
            if (thread != null) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
                flusher = null;
            }
        }

        private void flushLoop() {
            List<Completion> batch = new ArrayList<>();
            while (running || !pending.isEmpty()) {
                try {
                    Completion first = pending.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    pending.drainTo(batch, MAX_BATCH - 1);
                    flush(batch);
                    batch.clear();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        private void flush(List<Completion> batch) throws InterruptedException {
            long backoff = 100;
            while (true) {
                try {
                    complete(batch);
                    done(batch);
                    return;
                }
                catch (TransientDataAccessException | DataAccessResourceFailureException ex) {
                    // the jobs stay leased; retry until the database answers or their leases run out
                    logger.warn("Could not acknowledge " + batch.size() + " job(s), retrying: " + ex.getMessage());
                    if (!running && backoff > 1600) {
                        done(batch);
                        return;
                    }
                    Thread.sleep(backoff);
                    backoff = Math.min(backoff * 2, 5000);
                }
                catch (RuntimeException | Error ex) {
                    // an Error too: the flusher must outlive it, or workers block once the pending list is full
                    refused(batch, ex);
                    return;
                }
            }
        }

        /** The database refused the batch: halve it until the refused rows are found; the rest is deleted. */
        private void refused(List<Completion> batch, Throwable error) throws InterruptedException {
            if (batch.size() == 1) {
                logger.warn("Job " + batch.get(0).id() + " could not be acknowledged and is left to its lease: "
                        + error.getMessage());
                done(batch);
                return;
            }
            int half = batch.size() / 2;
            flush(batch.subList(0, half));
            flush(batch.subList(half, batch.size()));
        }

        /**
         * Deletes the batch's jobs, by the statement of the cascades their claims decided: plain jobs' without
         * any, workflow nodes' and batch members' with theirs (which releases dependants and counts batches in
         * the same statement).
         */
        private void complete(List<Completion> batch) {
            jobs.complete(node, batch);
        }
    }

    /** Their acknowledgement committed, or was given up: their leases are no longer renewed from here. */
    private void done(List<Completion> batch) {
        batch.forEach((ack) -> unacknowledged.remove(ack.id()));
        acknowledged.run();
    }
}
