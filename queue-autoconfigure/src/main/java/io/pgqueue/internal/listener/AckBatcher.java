package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.pgqueue.internal.lifecycle.ClaimedJob;
import io.pgqueue.internal.lifecycle.JobRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Deletes finished LEASE jobs in batches without delaying them: one thread flushes whatever has accumulated
 * while the previous flush ran, so an idle system acknowledges each job at once and a busy one sends many
 * ids per statement.
 */
final class AckBatcher {

    private static final Log logger = LogFactory.getLog(AckBatcher.class);

    private static final int MAX_BATCH = 1000;

    private final JobRepository jobs;

    private final UUID node;

    private final String name;

    private final LinkedBlockingQueue<ClaimedJob> pending = new LinkedBlockingQueue<>();

    private volatile boolean running;

    private Thread flusher;

    AckBatcher(JobRepository jobs, UUID node, String name) {
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

    void acknowledge(ClaimedJob job) {
        pending.add(job);
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
        List<ClaimedJob> batch = new ArrayList<>();
        while (running || !pending.isEmpty()) {
            try {
                ClaimedJob first = pending.poll(100, TimeUnit.MILLISECONDS);
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

    private void flush(List<ClaimedJob> batch) throws InterruptedException {
        long[] ids = new long[batch.size()];
        int[] attempts = new int[batch.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = batch.get(i).id();
            attempts[i] = batch.get(i).attempt();
        }
        long backoff = 100;
        while (true) {
            try {
                jobs.complete(node, ids, attempts);
                return;
            }
            catch (RuntimeException ex) {
                // the jobs stay leased; retry until the database answers or their leases run out
                logger.warn("Could not acknowledge " + ids.length + " job(s), retrying: " + ex.getMessage());
                if (!running && backoff > 1600) {
                    return;
                }
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, 5000);
            }
        }
    }
}
