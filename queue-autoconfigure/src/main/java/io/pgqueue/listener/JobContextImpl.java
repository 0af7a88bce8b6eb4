package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.pgqueue.store.ClaimedJob;
import org.jspecify.annotations.Nullable;

/**
 * The {@link JobContext} handed to a listener.
 */
final class JobContextImpl implements JobContext {

    /** Extends the lease of one job; a no-op in TRANSACTIONAL mode. */
    @FunctionalInterface
    interface LeaseExtender {

        boolean extend(ClaimedJob job, Duration duration);
    }

    private final ClaimedJob job;

    private final Map<String, String> headers;

    private final LeaseExtender leaseExtender;

    JobContextImpl(ClaimedJob job, Map<String, String> headers, LeaseExtender leaseExtender) {
        this.job = job;
        this.headers = Map.copyOf(headers);
        this.leaseExtender = leaseExtender;
    }

    @Override
    public long id() {
        return job.id();
    }

    @Override
    public String queue() {
        return job.queue();
    }

    @Override
    public int attempt() {
        return job.attempt();
    }

    @Override
    public int maxAttempts() {
        return job.maxAttempts();
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public Instant enqueuedAt() {
        return job.enqueuedAt();
    }

    @Override
    public Instant claimedAt() {
        return job.claimedAt();
    }

    @Override
    public @Nullable String payloadType() {
        return job.payloadType();
    }

    @Override
    public boolean extendLease(Duration duration) {
        return leaseExtender.extend(job, duration);
    }

    @Override
    public String toString() {
        return "JobContext[id=" + job.id() + ", queue=" + job.queue() + ", attempt=" + job.attempt() + "]";
    }
}
