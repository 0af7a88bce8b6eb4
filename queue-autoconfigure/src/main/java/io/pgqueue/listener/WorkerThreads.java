package io.pgqueue.listener;

/**
 * The threads a container runs its handlers on. Pollers, the acknowledgement flusher and the heartbeat are
 * platform threads either way.
 */
public enum WorkerThreads {

    /** A platform thread per worker (the default, and the only choice before Java 21). */
    PLATFORM,

    /**
     * A virtual thread per worker (Java 21 or later): a handler that waits on I/O leaves its carrier thread to
     * others, so a container can run a thousand waiting handlers on a few cores. A LEASE handler holds no
     * database connection while it runs; a TRANSACTIONAL handler holds its transaction's, so its concurrency
     * stays bound by the pool.
     */
    VIRTUAL;

    /** Whether this JVM can run virtual threads (Java 21 or later). */
    public static boolean virtualSupported() {
        return Runtime.version().feature() >= 21;
    }
}
