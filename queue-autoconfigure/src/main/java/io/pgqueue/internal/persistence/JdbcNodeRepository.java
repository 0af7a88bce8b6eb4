package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.pgqueue.model.ClusterNode;
import io.pgqueue.model.NodeContainer;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JDBC {@link NodeRepository}.
 */
final class JdbcNodeRepository implements NodeRepository {

    /** The containers column's JSON: records only, never a type named by the row. */
    private static final JsonMapper json = JsonMapper.builder().build();

    private static final TypeReference<List<NodeContainer>> CONTAINERS = new TypeReference<>() {
    };

    private final Jdbc jdbc;

    private final Sql heartbeat;

    private final Sql unregister;

    private final Sql nodes;

    JdbcNodeRepository(Jdbc jdbc, Schema schema) {
        this.jdbc = jdbc;
        // clock_timestamp(), not now(): a heartbeat that waited for a lock must not date itself from before the
        // wait, or the first node back from a stall would find every node, itself included, long gone
        this.heartbeat = schema.sql("node.heartbeat", """
                WITH alive AS (
                    INSERT INTO {schema}.node AS n (id, host, pid, containers, heartbeat_at)
                    VALUES (:node, :host, :pid, coalesce(:containers::jsonb, '[]'::jsonb), clock_timestamp())
                    ON CONFLICT (id) DO UPDATE SET heartbeat_at = clock_timestamp(),
                        containers = CASE WHEN :containers::jsonb IS NULL THEN n.containers ELSE excluded.containers END
                    RETURNING id
                ), renewed AS (
                    UPDATE {schema}.job
                    SET lease_until = greatest(lease_until, clock_timestamp() + :lease_ms * interval '1 millisecond')
                    WHERE id = ANY(:ids::bigint[]) AND locked_by = (SELECT id FROM alive)
                    RETURNING id, cancel_requested
                )
                SELECT id FROM renewed WHERE cancel_requested
                """);
        this.unregister = schema.sql("node.unregister", "DELETE FROM {schema}.node WHERE id = :node");
        this.nodes = schema.sql("node.nodes", "SELECT id, host, pid, started_at, heartbeat_at, containers FROM {schema}.node ORDER BY started_at, id");
    }

    @Override
    public List<Long> heartbeat(UUID node, String host, long pid, Duration lease, long[] runningJobIds,
            @Nullable List<NodeContainer> containers, Duration timeout) {
        String described = (containers != null) ? json.writeValueAsString(containers) : null;
        return jdbc.query(heartbeat, (params) -> params.uuid("node", node)
            .text("host", host)
            .text("containers", described)
            .int8("pid", pid)
            .int8("lease_ms", lease.toMillis())
            .int8Array("ids", runningJobIds), (row) -> row.getLong("id"), timeout);
    }

    @Override
    public void unregister(UUID node) {
        jdbc.update(unregister, (params) -> params.uuid("node", node));
    }

    @Override
    public List<ClusterNode> nodes() {
        return jdbc.query(nodes, Jdbc.Binder.NONE, (row) -> new ClusterNode(row.getObject("id", UUID.class),
                row.getString("host"), row.getLong("pid"), row.getTimestamp("started_at").toInstant(),
                row.getTimestamp("heartbeat_at").toInstant(), json.readValue(row.getString("containers"), CONTAINERS)));
    }
}
