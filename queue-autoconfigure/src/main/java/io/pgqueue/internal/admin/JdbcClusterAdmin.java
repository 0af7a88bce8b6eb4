package io.pgqueue.internal.admin;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.pgqueue.admin.ClusterAdmin;
import io.pgqueue.internal.node.VacuumHorizonWatch;
import io.pgqueue.internal.persistence.NodeRepository;
import io.pgqueue.internal.persistence.ReplicaRepository;
import io.pgqueue.internal.persistence.SchemaRepository;
import io.pgqueue.internal.persistence.VacuumHorizonRepository;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.VacuumHold;
import org.jspecify.annotations.Nullable;

/**
 * One database's cluster: its nodes, what holds back its vacuum, its schema version, and, with a read replica,
 * the database's status with the replica's lag.
 */
final class JdbcClusterAdmin implements ClusterAdmin {

    private final NodeRepository nodes;

    private final SchemaRepository schemaInfo;

    private final VacuumHorizonRepository vacuumHorizons;

    private final @Nullable VacuumHorizonWatch vacuumHorizon;

    private final @Nullable Replica replica;

    /** A database whose listings are read from a replica: its name and the replica's state. */
    record Replica(String database, ReplicaRepository state) {
    }

    /**
     * @param vacuumHorizon the node's watch of what holds back vacuum, or null to look each time asked
     * @param replica the database's read replica, or null when it has none
     */
    JdbcClusterAdmin(NodeRepository nodes, SchemaRepository schemaInfo, VacuumHorizonRepository vacuumHorizons,
            @Nullable VacuumHorizonWatch vacuumHorizon, @Nullable Replica replica) {
        this.nodes = nodes;
        this.schemaInfo = schemaInfo;
        this.vacuumHorizons = vacuumHorizons;
        this.vacuumHorizon = vacuumHorizon;
        this.replica = replica;
    }

    @Override
    public List<ClusterNode> nodes() {
        return nodes.nodes();
    }

    @Override
    public Optional<VacuumHold> vacuumHold() {
        if (vacuumHorizon != null) {
            return vacuumHorizon.current();
        }
        return vacuumHorizons.oldest().map(VacuumHorizonRepository.Held::hold);
    }

    @Override
    public @Nullable String schemaVersion() {
        return schemaInfo.version();
    }

    /** With a read replica: this database, as its primary answers, with its replica's lag; else none. */
    @Override
    public List<DatabaseStatus> databases() {
        if (replica == null) {
            return List.of();
        }
        return List.of(DatabaseStatus.probe(replica.database(), List.of(), this::schemaVersion)
            .withReplicaLag(replicaLag(replica.state())));
    }

    /** The replica's replay lag, or null when it does not answer or is not a replica. */
    private static @Nullable Duration replicaLag(ReplicaRepository state) {
        try {
            return state.replayLag();
        }
        catch (RuntimeException ex) {
            return null;
        }
    }
}
