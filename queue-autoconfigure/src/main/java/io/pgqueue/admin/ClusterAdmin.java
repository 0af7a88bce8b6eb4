package io.pgqueue.admin;

import java.util.List;
import java.util.Optional;

import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.VacuumHold;
import org.jspecify.annotations.Nullable;

/**
 * The cluster: its nodes, what holds back vacuum, the schema version and the databases queues live in.
 * One role of {@link QueueAdmin}, which is all of them; inject the role a class needs.
 */
public interface ClusterAdmin {

    /** Every node of the cluster, oldest first. */
    List<ClusterNode> nodes();

    /**
     * What holds back vacuum in pgqueue's database the longest (the oldest transaction, prepared transaction
     * or replication slot), as of this node's last look, if anything does. While it holds, no row version the
     * queues leave behind can be removed, and tables and indexes grow.
     */
    Optional<VacuumHold> vacuumHold();

    /** pgqueue's schema version, or null when pgqueue did not migrate the schema. */
    @Nullable String schemaVersion();

    /**
     * The databases queues live in, each asked whether it answers, when more than one is configured
     * ({@code pgqueue.databases}); empty with one database.
     */
    default List<DatabaseStatus> databases() {
        return List.of();
    }
}
