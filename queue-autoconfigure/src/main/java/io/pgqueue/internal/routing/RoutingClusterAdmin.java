package io.pgqueue.internal.routing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.pgqueue.admin.ClusterAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.VacuumHold;
import org.jspecify.annotations.Nullable;

/**
 * The cluster across databases: every database's nodes (this node once), the oldest hold on any vacuum, each database's status.
 */
final class RoutingClusterAdmin implements ClusterAdmin {

    private final AdminRoutes routes;

    RoutingClusterAdmin(AdminRoutes routes) {
        this.routes = routes;
    }

    /** Every database's nodes; this application's node is one node however many databases it is a member of. */
    @Override
    public List<ClusterNode> nodes() {
        Map<UUID, ClusterNode> byId = new LinkedHashMap<>();
        for (ClusterNode node : routes.all(QueueAdmin::nodes)) {
            byId.merge(node.id(), node, (a, b) -> new ClusterNode(a.id(), a.host(), a.pid(), a.startedAt(),
                    a.heartbeatAt().isBefore(b.heartbeatAt()) ? a.heartbeatAt() : b.heartbeatAt(),
                    java.util.stream.Stream.concat(a.containers().stream(), b.containers().stream()).toList()));
        }
        return List.copyOf(byId.values());
    }

    /** The oldest hold on any database's vacuum. */
    @Override
    public Optional<VacuumHold> vacuumHold() {
        Instant now = Instant.now();
        return routes.all((admin) -> admin.vacuumHold().stream().toList()).stream()
            .max(Comparator.comparing((VacuumHold hold) -> hold.age(now)));
    }

    @Override
    public @Nullable String schemaVersion() {
        return routes.router().defaultUnit().service().schemaVersion();
    }

    @Override
    public List<DatabaseStatus> databases() {
        List<DatabaseStatus> statuses = new ArrayList<>();
        for (DatabaseUnit<QueueAdmin> unit : routes.router().units()) {
            List<String> queues = unit.queues().stream().sorted().toList();
            // a database's admin with a read replica probes itself and tells its replica's lag
            List<DatabaseStatus> own = unit.service().databases();
            DatabaseStatus status = own.isEmpty() ? DatabaseStatus.probe(unit.name(), queues, unit.service()::schemaVersion)
                    : new DatabaseStatus(unit.name(), own.get(0).up(), own.get(0).error(), queues, own.get(0).replicaLag());
            statuses.add(status);
        }
        return statuses;
    }
}
