package io.pgqueue.internal.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.pgqueue.internal.lifecycle.ClaimedJob;
import io.pgqueue.listener.JobContext;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link JobContext} of one claimed job, handed to its listener and to observers. Headers are decoded on
 * first use: most handlers never read them.
 */
final class JobContextImpl implements JobContext {

    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
    };

    /** Extends the lease of one job; a no-op in TRANSACTIONAL mode. */
    @FunctionalInterface
    interface LeaseExtender {

        LeaseExtender NONE = (job, duration) -> false;

        boolean extend(ClaimedJob job, Duration duration);
    }

    private final ClaimedJob job;

    private final JsonMapper mapper;

    private final LeaseExtender leaseExtender;

    private volatile @Nullable Map<String, String> headers;

    JobContextImpl(ClaimedJob job, JsonMapper mapper, LeaseExtender leaseExtender) {
        this.job = job;
        this.mapper = mapper;
        this.leaseExtender = leaseExtender;
    }

    ClaimedJob job() {
        return job;
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
        Map<String, String> decoded = headers;
        if (decoded == null) {
            decoded = (job.headersJson() != null) ? Map.copyOf(mapper.readValue(job.headersJson(), HEADERS)) : Map.of();
            headers = decoded;
        }
        return decoded;
    }

    @Override
    public Instant enqueuedAt() {
        return job.enqueuedAt();
    }

    @Override
    public Instant dueAt() {
        return job.dueAt();
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
