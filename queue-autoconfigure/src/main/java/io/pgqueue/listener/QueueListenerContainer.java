package io.pgqueue.listener;

/**
 * Runs one listener on one queue: claims jobs and hands them to the listener with bounded concurrency.
 */
public interface QueueListenerContainer {

    String id();

    String queue();

    ContainerOptions options();

    void start();

    /** Stops claiming, lets running handlers finish within the shutdown timeout, releases the rest. */
    void stop();

    boolean isRunning();

    /** Jobs this container is running now (claimed and not yet acknowledged). */
    int inFlight();

    /** Polls at once instead of waiting for the poll interval (a NOTIFY arrived for the queue). */
    void wakeUp();

    /**
     * How many handler runs ended in an error of the JVM itself (e.g. {@link OutOfMemoryError}) since the
     * container started: each counted as its job's failed attempt (a TRANSACTIONAL worker thread is replaced;
     * a LEASE pool thread, holding no transaction, carries on). Health reports them.
     */
    default long fatalErrors() {
        return 0;
    }

    /**
     * Handler runs that were interrupted for their timeout or cancellation longer than
     * {@code pgqueue.listener.interrupt-grace} ago and have not returned (they ignore interrupts). A LEASE job of
     * such a run is no longer kept: its lease runs out and it is rescued. Health reports them.
     */
    default int stuckRuns() {
        return 0;
    }
}
