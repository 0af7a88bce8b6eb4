package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What a listener can know about the job it runs; declare it as a parameter of a {@code @QueueListener}
 * method.
 */
public interface JobContext {

    long id();

    String queue();

    /** This attempt's number, starting at 1. */
    int attempt();

    /** Attempts allowed before the job goes dead. */
    int maxAttempts();

    Map<String, String> headers();

    /** When the job was sent. */
    Instant enqueuedAt();

    /** When the job became runnable: its run-at, after any delay or backoff. */
    Instant dueAt();

    /** When this attempt was claimed (database clock). */
    Instant claimedAt();

    /** The Java type the payload was written from, as recorded at send. */
    @Nullable String payloadType();

    /**
     * Extends this job's lease to at least {@code duration} from now (LEASE mode; the node's heartbeat
     * already renews leases while the handler runs, so this is for handlers that want a longer margin).
     * No effect in TRANSACTIONAL mode, where the open transaction holds the job.
     * @return whether the lease was extended (false if this node no longer owns the job)
     */
    boolean extendLease(Duration duration);
}
