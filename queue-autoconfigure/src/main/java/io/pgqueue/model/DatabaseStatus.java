package io.pgqueue.model;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One of the databases pgqueue's queues live in, as last seen.
 *
 * @param name the database's name ({@code default} for the application's DataSource)
 * @param up whether it answered
 * @param error why it did not, when it did not
 * @param queues the queues configured to live in it (empty for the default database, which holds every other)
 * @param replicaLag with a read replica for listings ({@code replica.*}), how far its replay is behind; null
 * without one, or when it did not answer
 */
public record DatabaseStatus(String name, boolean up, @Nullable String error, List<String> queues,
        @Nullable Duration replicaLag) {

    public DatabaseStatus {
        queues = List.copyOf(queues);
    }

    /** A database without a read replica. */
    public DatabaseStatus(String name, boolean up, @Nullable String error, List<String> queues) {
        this(name, up, error, queues, null);
    }

    /**
     * A database's status as a check of it tells: up when the check returns, down with the check's error when it
     * throws.
     */
    public static DatabaseStatus probe(String name, List<String> queues, Runnable check) {
        try {
            check.run();
            return new DatabaseStatus(name, true, null, queues);
        }
        catch (RuntimeException ex) {
            return new DatabaseStatus(name, false, ex.getClass().getSimpleName() + ": " + ex.getMessage(), queues);
        }
    }

    /** The same, with its replica's lag. */
    public DatabaseStatus withReplicaLag(@Nullable Duration lag) {
        return new DatabaseStatus(name, up, error, queues, lag);
    }
}
