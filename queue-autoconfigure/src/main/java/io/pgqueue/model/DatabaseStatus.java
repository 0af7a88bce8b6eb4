package io.pgqueue.model;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One of the databases pgqueue's queues live in, as last seen.
 *
 * @param name the database's name ({@code default} for the application's DataSource)
 * @param up whether it answered
 * @param error why it did not, when it did not
 * @param queues the queues configured to live in it (empty for the default database, which holds every other)
 */
public record DatabaseStatus(String name, boolean up, @Nullable String error, List<String> queues) {

    public DatabaseStatus {
        queues = List.copyOf(queues);
    }
}
