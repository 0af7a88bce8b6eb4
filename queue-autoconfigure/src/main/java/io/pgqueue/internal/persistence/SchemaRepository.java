package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Questions about the schema itself: for checking it when pgqueue does not migrate it, and for operators.
 */
public interface SchemaRepository {

    /** The tables the runtime reads and writes. */
    List<String> TABLES = java.util.stream.Stream
        .of(List.of("job"), Counters.TABLES, List.of("queue_state", "node", "schedule", "workflow", "workflow_node", "job_dependency",
                "job_dependency_done",
                "batch", "batch_slot", "batch_callback"))
        .flatMap(List::stream)
        .toList();

    /** The runtime's tables that do not exist in the schema. */
    List<String> missingTables();

    /** The last applied migration version, or null when pgqueue's Flyway history table does not exist. */
    @Nullable String version();

    /**
     * The version the schema states ({@code schema_version()}, from version 5 on), or null when it states none:
     * a schema older than version 5, or none at all.
     */
    @Nullable Integer statedVersion();

    /**
     * The oldest schema version whose code may run on this schema ({@code schema_compatible_from()}, from version 8
     * on), or null when the schema does not say.
     */
    @Nullable Integer compatibleFrom();

    /** The tables whose ids come from an identity column, and therefore from a database's id block. */
    List<String> IDENTITY_TABLES = List.of("job", "workflow", "batch");

    /**
     * Makes the identity columns of {@link #IDENTITY_TABLES} draw their ids from {@code first..last} (once;
     * later calls find it done), so that an id names its database. Nodes starting at once take turns under the
     * migration's lock and read the bounds again under it; a block that already holds rows goes on after them.
     * @param lockTimeout bound of the change's lock waits on the tables
     * @throws IllegalStateException when a table already holds rows with ids outside the block
     */
    void useIdBlock(long first, long last, Duration lockTimeout);
}
