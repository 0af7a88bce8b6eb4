package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.pgqueue.internal.persistence.ClaimedJob;
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
 */
final class AckBatcher {

    private static final Log logger = LogFactory.getLog(AckBatcher.class);

    private static final int MAX_BATCH = 1000;

    /** Finished jobs waiting for their acknowledgement at most. */
    static final int MAX_PENDING = 10_000;

    private final JobEnginePort jobs;

    private final UUID node;

    private final String name;

    private final LinkedBlockingQueue<Ack> pending = new LinkedBlockingQueue<>(MAX_PENDING);

    /**
     * A finished job: what its acknowledgement needs (id, attempt) and what its handler returned (JSON), if
     * anything; never the claimed job itself, whose payload would otherwise stay in memory until the flush.
     */
    private record Ack(long id, int attempt, @Nullable String outputJson, @Nullable Long workflowId,
            @Nullable Long batchId) {

        boolean cascades() {
            return workflowId != null || batchId != null;
        }
    }

    private volatile boolean running;

    private Thread flusher;

    AckBatcher(JobEnginePort jobs, UUID node, String name) {
        this.jobs = jobs;
        this.node = node;
        this.name = name;
    }

    synchronized void start() {
        running = true;
        flusher = new Thread(this::flushLoop, name);
        flusher.setDaemon(true);
        flusher.start();
    }

    /** Queues a finished job for deletion; waits while the pending list is full. */
    void acknowledge(ClaimedJob job, @Nullable String outputJson) {
        try {
            pending.put(new Ack(job.id(), job.attempt(), outputJson, job.workflowId(), job.batchId()));
        }
        catch (InterruptedException ex) {
            // shutting down: the job keeps its lease and is rescued if nobody acknowledges it
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the flusher thread is alive (it should be from start to stop). */
    boolean isAlive() {
        Thread thread = flusher;
        return thread != null && thread.isAlive();
    }

    /** Flushes what is pending, waiting at most {@code timeout}, and stops the flusher thread. */
    synchronized void stop(Duration timeout) throws InterruptedException {
        running = false;
        if (flusher != null) {
            flusher.join(timeout.toMillis());
            flusher = null;
        }
    }

    private void flushLoop() {
        List<Ack> batch = new ArrayList<>();
        while (running || !pending.isEmpty()) {
            try {
                Ack first = pending.poll(100, TimeUnit.MILLISECONDS);
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

    private void flush(List<Ack> batch) throws InterruptedException {
        long backoff = 100;
        while (true) {
            try {
                complete(batch);
                return;
            }
            catch (TransientDataAccessException | DataAccessResourceFailureException ex) {
                // the jobs stay leased; retry until the database answers or their leases run out
                logger.warn("Could not acknowledge " + batch.size() + " job(s), retrying: " + ex.getMessage());
                if (!running && backoff > 1600) {
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
    private void refused(List<Ack> batch, Throwable error) throws InterruptedException {
        if (batch.size() == 1) {
            logger.warn("Job " + batch.get(0).id() + " could not be acknowledged and is left to its lease: "
                    + error.getMessage());
            return;
        }
        int half = batch.size() / 2;
        flush(batch.subList(0, half));
        flush(batch.subList(half, batch.size()));
    }

    /**
     * Deletes the batch's jobs: plain jobs by the plain statement, workflow nodes and batch members by its variant
     * with their cascades (which releases dependants and counts batches in the same statement); a batch of plain
     * jobs never pays for the variant.
     */
    private void complete(List<Ack> batch) {
        List<Ack> nodes = null;
        List<Ack> plain = batch;
        for (Ack ack : batch) {
            if (ack.cascades()) {
                nodes = batch.stream().filter(Ack::cascades).toList();
                plain = batch.stream().filter((a) -> !a.cascades()).toList();
                break;
            }
        }
        if (!plain.isEmpty()) {
            complete(plain, false);
        }
        if (nodes != null) {
            complete(nodes, true);
        }
    }

    private void complete(List<Ack> batch, boolean nodes) {
        long[] ids = new long[batch.size()];
        int[] attempts = new int[batch.size()];
        String[] outputs = new String[batch.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = batch.get(i).id();
            attempts[i] = batch.get(i).attempt();
            outputs[i] = batch.get(i).outputJson();
        }
        if (nodes) {
            jobs.completeMembers(node, ids, attempts, outputs, batch.stream().map(Ack::workflowId).toArray(Long[]::new),
                    batch.stream().map(Ack::batchId).toArray(Long[]::new));
        }
        else {
            jobs.complete(node, ids, attempts, outputs);
        }
    }
}
