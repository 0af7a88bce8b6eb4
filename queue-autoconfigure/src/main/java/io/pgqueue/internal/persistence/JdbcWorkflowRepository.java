package io.pgqueue.internal.persistence;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.pgqueue.model.JobState;
import io.pgqueue.model.WorkflowCounts;
import io.pgqueue.model.WorkflowInfo;
import io.pgqueue.model.WorkflowNodeInfo;
import io.pgqueue.model.WorkflowQuery;
import io.pgqueue.model.WorkflowState;
import org.jspecify.annotations.Nullable;

/**
 * The workflow tables' one place. Counts per workflow are an aggregate like the queue counters (deltas
 * appended by {@link WorkflowCascade} and by {@link Transition#SUBMIT}, folded by {@link #squeeze()}); a
 * workflow's state is derived from them on every read, and stored by the squeeze for listing by state.
 */
final class JdbcWorkflowRepository implements WorkflowRepository {

    /** The workflow state its counts mean, in SQL over a row of counts aliased {@code c} (as WorkflowCounts). */
    private static final String STATE_OF_COUNTS = """
            CASE WHEN c.active > 0 OR (c.waiting > 0 AND c.dead = 0) THEN 'running'
                 WHEN c.dead > 0 OR c.waiting > 0 THEN 'failed'
                 WHEN c.cancelled > 0 THEN 'cancelled' ELSE 'completed' END""";

    /**
     * When the workflow {@code w} finished: its last node's finish. The squeeze stores it once the counts say the
     * workflow finished; a read before that pass takes it from here, so the time never changes between reads.
     */
    private static final String LAST_NODE_FINISHED =
            "(SELECT max(n.finished_at) FROM {schema}.workflow_node n WHERE n.workflow_id = w.id)";

    /** A listed workflow's finish: stored, or its last node's while its counts say it finished and no pass stored it. */
    private static final String FINISHED_AT = """
            coalesce(w.finished_at, CASE WHEN (%s) IN ('completed', 'cancelled') THEN %s END) AS finished_at"""
        .formatted(STATE_OF_COUNTS, LAST_NODE_FINISHED);

    private final Jdbc jdbc;

    private final org.springframework.transaction.support.TransactionTemplate transactions;

    private final Schema schema;

    private final Counters workflowCounts;

    private final Sql create;

    private final Sql allocate;

    private final Sql insert;

    private final Sql lock;

    private final Sql nodes;

    private final Sql nodeOfJob;

    private final Sql outputs;

    private final Sql workflow;

    private final Sql nodePage;

    private final Sql unfinished;

    private final Sql countsByState;

    private final Sql squeeze;

    private final Sql expire;

    private final Sql insertCompensations;

    private final Sql compensationsDue;

    private final Sql compensableNodes;

    private final Sql name;

    private final Sql compensationStarted;

    private final Map<String, Sql> pages = new java.util.concurrent.ConcurrentHashMap<>();

    JdbcWorkflowRepository(Jdbc jdbc, Schema schema, Counters counters) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.transactions = new org.springframework.transaction.support.TransactionTemplate(
                new org.springframework.jdbc.datasource.DataSourceTransactionManager(jdbc.dataSource()));
        this.workflowCounts = new Counters(true, Counters.Aggregate.WORKFLOW);
        this.create = schema.sql("workflow.create", 
                "INSERT INTO {schema}.workflow (name, default_policy) VALUES (:name, :policy) RETURNING id");
        this.allocate = schema.sql("workflow.allocate", """
                SELECT nextval(pg_get_serial_sequence('{schema}.job', 'id')) FROM generate_series(1, :count)""");
        this.insert = schema.sql("workflow.insert", Steps.step("input", """
                SELECT n.id, n.queue, n.pending, n.name, n.parents, n.payload, n.payload_type, n.headers,
                       n.priority, n.max_attempts, n.group_key, n.timeout_ms, n.fairness_key,
                       coalesce(to_timestamp(n.run_at_ms / 1000.0), now() + n.delay_ms * interval '1 millisecond') AS due
                -- one unnest of every array, which walks them side by side: two unnests joined on their
                -- ordinality were a join, which a plan for a few rows ran as a nested loop (10,000 x 10,000 nodes)
                FROM unnest(:ids::bigint[], :queues::text[], :pending::int[], :names::text[], :parents::text[],
                            :payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[],
                            :run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :group_key::text[],
                            :timeout_ms::bigint[], :fairness_key::text[])
                     AS n(id, queue, pending, name, parents, payload, payload_type, headers, priority, run_at_ms,
                          delay_ms, max_attempts, group_key, timeout_ms, fairness_key)""")
            .then("inserted", """
                INSERT INTO {schema}.job (id, queue, state, priority, run_at, payload, payload_type, headers,
                                          max_attempts, group_key, timeout_ms, workflow_id, pending_parents,
                                          fairness_key)
                OVERRIDING SYSTEM VALUE
                SELECT id, queue, CASE WHEN pending > 0 THEN 'waiting' WHEN due > now() THEN 'scheduled' ELSE 'ready' END,
                       priority, due, payload::jsonb, payload_type, headers::jsonb, max_attempts, group_key,
                       timeout_ms, :workflow_id, pending, fairness_key
                FROM input
                RETURNING id, queue, state, workflow_id, fairness_key""")
            .then(counters.delta(Transition.SUBMIT, "inserted", Counters.Rows.MANY))
            .then(new FairnessCascade().activate("inserted", "", true))
            .then("nodes", """
                INSERT INTO {schema}.workflow_node (workflow_id, name, job_id, queue, parents)
                SELECT :workflow_id, name, id, queue,
                       ARRAY(SELECT jsonb_array_elements_text(parents::jsonb))
                FROM input""")
            .then("edges", """
                INSERT INTO {schema}.job_dependency (parent_id, child_id, policy)
                SELECT * FROM unnest(:edge_parents::bigint[], :edge_children::bigint[], :edge_policies::text[])""")
            .then(Counters.Aggregate.WORKFLOW.delta("counted_workflow", """
                SELECT :workflow_id::bigint AS workflow_id, 'none' AS was,
                                 CASE WHEN state = 'waiting' THEN 'waiting' ELSE 'active' END AS now_is
                          FROM inserted"""))
            .tagged(Transition.SUBMIT)
            .select("SELECT DISTINCT queue FROM inserted WHERE state = 'ready'"));
        this.lock = schema.sql("workflow.lock", "SELECT name, default_policy FROM {schema}.workflow WHERE id = :id FOR UPDATE");
        this.nodes = schema.sql("workflow.nodes", """
                SELECT n.name, n.job_id, coalesce(n.state, j.state) AS state
                FROM {schema}.workflow_node n LEFT JOIN {schema}.job j ON j.id = n.job_id
                WHERE n.workflow_id = :workflow_id AND n.name = ANY(:names::text[])""");
        this.nodeOfJob = schema.sql("workflow.node-of-job", """
                SELECT n.workflow_id, w.name AS workflow_name, n.name, n.parents
                FROM {schema}.workflow_node n JOIN {schema}.workflow w ON w.id = n.workflow_id
                WHERE n.job_id = :job_id""");
        this.outputs = schema.sql("workflow.outputs", """
                SELECT name, output::text AS output FROM {schema}.workflow_node
                WHERE workflow_id = :workflow_id AND name = ANY(:names::text[]) AND output IS NOT NULL""");
        this.workflow = schema.sql("workflow.workflow", """
                SELECT w.id, w.name, w.created_at, %s, w.compensation_id, cs.state AS compensation_state, c.*
                FROM {schema}.workflow w
                LEFT JOIN LATERAL (%s) AS c ON true
                %s
                WHERE w.id = :id""".formatted(FINISHED_AT, workflowCounts.countsQuery("workflow_id = w.id"),
                compensationStateJoin()));
        this.nodePage = schema.sql("workflow.node-page", """
                SELECT n.name, n.job_id, n.queue, n.parents, coalesce(n.state, j.state) AS state,
                       coalesce(n.error, split_part(left(j.last_error, 1000), chr(10), 1)) AS error
                FROM {schema}.workflow_node n LEFT JOIN {schema}.job j ON j.id = n.job_id
                WHERE n.workflow_id = :workflow_id AND n.job_id > :after
                ORDER BY n.job_id LIMIT :limit""");
        this.unfinished = schema.sql("workflow.unfinished", """
                SELECT n.job_id FROM {schema}.workflow_node n JOIN {schema}.job j ON j.id = n.job_id
                WHERE n.workflow_id = :workflow_id AND n.state IS NULL AND j.state <> 'dead'
                ORDER BY (j.state = 'waiting') DESC, n.job_id""");
        this.countsByState = schema.sql("workflow.counts-by-state", "SELECT state, count(*) FROM {schema}.workflow GROUP BY state");
        this.squeeze = schema.sql("workflow.squeeze", workflowCounts.squeezeStatement(Steps.step("stated", """
                UPDATE {schema}.workflow w
                SET state = s.state,
                    finished_at = CASE WHEN s.state IN ('completed', 'cancelled')
                                       THEN coalesce(w.finished_at, %s, now()) END
                FROM (SELECT c.workflow_id, %s AS state FROM folded c) AS s
                WHERE w.id = s.workflow_id AND (w.state <> s.state OR (w.finished_at IS NULL) = (s.state IN ('completed', 'cancelled')))"""
                .formatted(LAST_NODE_FINISHED, STATE_OF_COUNTS))));
        this.expire = schema.sql("workflow.expire", """
                WITH gone AS (
                    DELETE FROM {schema}.workflow WHERE id = ANY(ARRAY(
                        SELECT id FROM {schema}.workflow
                        WHERE finished_at < now() - :retention_ms * interval '1 millisecond'
                        ORDER BY finished_at LIMIT :limit FOR UPDATE SKIP LOCKED))
                    RETURNING id
                ), nodes AS (
                    DELETE FROM {schema}.workflow_node n USING gone g WHERE n.workflow_id = g.id
                ), counts AS (
                    DELETE FROM {schema}.workflow_counter c USING gone g WHERE c.workflow_id = g.id
                ), compensations AS (
                    DELETE FROM {schema}.workflow_compensation c USING gone g WHERE c.workflow_id = g.id
                )
                SELECT count(*) FROM gone""");
        this.insertCompensations = schema.sql("workflow.insert-compensations", """
                INSERT INTO {schema}.workflow_compensation (workflow_id, node, queue, payload, payload_type)
                SELECT :workflow_id, c.node, c.queue, c.payload::jsonb, c.payload_type
                FROM unnest(:nodes::text[], :queues::text[], :payloads::text[], :payload_types::text[])
                     AS c(node, queue, payload, payload_type)
                ON CONFLICT (workflow_id, node) DO NOTHING""");
        // the counts with the deltas not folded yet: a dead node an operator just retried is active again
        this.compensationsDue = schema.sql("workflow.compensations-due", """
                SELECT w.id FROM {schema}.workflow w
                WHERE w.id IN (SELECT DISTINCT workflow_id FROM {schema}.workflow_compensation WHERE NOT started)
                  AND w.state IN ('failed', 'cancelled') AND w.compensation_id IS NULL
                  AND NOT EXISTS (
                      SELECT 1 FROM (SELECT sum(active) AS active, sum(waiting) AS waiting
                                     FROM (SELECT active, waiting FROM {schema}.workflow_counter WHERE workflow_id = w.id
                                           UNION ALL
                                           SELECT active, waiting FROM {schema}.workflow_counter_delta
                                           WHERE workflow_id = w.id) AS parts) AS c
                      WHERE c.active > 0 OR c.waiting > 0)
                ORDER BY w.id LIMIT :limit
                FOR UPDATE OF w SKIP LOCKED""");
        this.compensableNodes = schema.sql("workflow.compensable-nodes", """
                SELECT n.name, n.parents, c.queue, c.payload::text AS payload, c.payload_type
                FROM {schema}.workflow_node n
                LEFT JOIN {schema}.workflow_compensation c
                       ON c.workflow_id = n.workflow_id AND c.node = n.name AND n.state = 'completed'
                WHERE n.workflow_id = :workflow_id
                ORDER BY n.job_id""");
        this.name = schema.sql("workflow.name", "SELECT name FROM {schema}.workflow WHERE id = :workflow_id");
        this.compensationStarted = schema.sql("workflow.compensation-started", Steps.step("started", """
                UPDATE {schema}.workflow_compensation SET started = true WHERE workflow_id = :workflow_id AND NOT started
                RETURNING node""")
            .then("recorded", "UPDATE {schema}.workflow SET compensation_id = :compensation_id WHERE id = :workflow_id")
            .select("SELECT count(*) FROM started"));
    }

    @Override
    public void insertCompensations(long workflowId, List<NewCompensation> compensations) {
        jdbc.update(insertCompensations, (params) -> params.int8("workflow_id", workflowId)
            .array("nodes", "text", Params.column(compensations, NewCompensation::node))
            .array("queues", "text", Params.column(compensations, NewCompensation::queue))
            .array("payloads", "text", Params.column(compensations, NewCompensation::payloadJson))
            .array("payload_types", "text", Params.column(compensations, NewCompensation::payloadType)));
    }

    @Override
    public List<Long> lockCompensationsDue(int limit) {
        return jdbc.query(compensationsDue, (params) -> params.int4("limit", limit), (row) -> row.getLong(1));
    }

    @Override
    public List<CompensableNode> compensableNodes(long workflowId) {
        return jdbc.query(compensableNodes, (params) -> params.int8("workflow_id", workflowId), (row) -> {
            String queue = row.getString("queue");
            java.sql.Array parents = row.getArray("parents");
            return new CompensableNode(row.getString("name"),
                    (parents != null) ? List.of((String[]) parents.getArray()) : List.of(),
                    (queue != null) ? new NewCompensation(row.getString("name"), queue, row.getString("payload"),
                            row.getString("payload_type")) : null);
        });
    }

    @Override
    public String name(long workflowId) {
        return jdbc.query(name, (params) -> params.int8("workflow_id", workflowId), (row) -> row.getString(1)).get(0);
    }

    @Override
    public void compensationStarted(long workflowId, @Nullable Long compensationId) {
        jdbc.count(compensationStarted, (params) -> params.int8("workflow_id", workflowId)
            .int8("compensation_id", compensationId));
    }

    @Override
    public long create(String name, String defaultPolicy) {
        return jdbc.count(create, (params) -> params.text("name", name).text("policy", defaultPolicy));
    }

    @Override
    public long[] allocateJobIds(int count) {
        return jdbc.query(allocate, (params) -> params.int4("count", count), (row) -> row.getLong(1))
            .stream()
            .mapToLong(Long::longValue)
            .toArray();
    }

    @Override
    public List<String> insertNodes(long workflowId, List<NewNode> nodes, List<NewEdge> edges) {
        return jdbc.query(insert, (params) -> {
            params.int8("workflow_id", workflowId)
                .array("payload", "text", Params.column(nodes, (n) -> n.job().payloadJson()))
                .array("payload_type", "text", Params.column(nodes, (n) -> n.job().payloadType()))
                .array("headers", "text", Params.column(nodes, (n) -> n.job().headersJson()))
                .array("priority", "int2", Params.column(nodes, (n) -> n.job().priority()))
                .array("run_at_ms", "int8", Params.column(nodes, (n) -> n.job().runAtMillis()))
                .array("delay_ms", "int8", Params.column(nodes, (n) -> n.job().delayMillis()))
                .array("max_attempts", "int4", Params.column(nodes, (n) -> n.job().maxAttempts()))
                .array("group_key", "text", Params.column(nodes, (n) -> n.job().groupKey()))
                .array("fairness_key", "text", Params.column(nodes, (n) -> n.job().fairnessKey()))
                .array("timeout_ms", "int8", Params.column(nodes, (n) -> n.job().timeoutMillis()))
                .int8Array("ids", nodes.stream().mapToLong(NewNode::jobId).toArray())
                .array("queues", "text", Params.column(nodes, NewNode::queue))
                .array("pending", "int4", Params.column(nodes, NewNode::pendingParents))
                .array("names", "text", Params.column(nodes, NewNode::name))
                .array("parents", "text", Params.column(nodes, (n) -> jsonArray(n.parents())))
                .int8Array("edge_parents", edges.stream().mapToLong(NewEdge::parentId).toArray())
                .int8Array("edge_children", edges.stream().mapToLong(NewEdge::childId).toArray())
                .array("edge_policies", "text", edges.stream().map(NewEdge::policy).toArray());
        }, (row) -> row.getString(1));
    }

    @Override
    public @Nullable LockedWorkflow lock(long workflowId) {
        List<LockedWorkflow> found = jdbc.query(lock, (params) -> params.int8("id", workflowId),
                (row) -> new LockedWorkflow(row.getString(1), row.getString(2)));
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public <T> T inTransaction(java.util.function.Supplier<T> work) {
        return java.util.Objects.requireNonNull(transactions.execute((status) -> work.get()));
    }

    @Override
    public Map<String, StoredNode> nodes(long workflowId, Collection<String> names) {
        Map<String, StoredNode> found = new HashMap<>();
        jdbc.query(nodes, (params) -> params.int8("workflow_id", workflowId).array("names", "text", names.toArray()),
                (row) -> {
                    String state = row.getString("state");
                    return found.put(row.getString("name"), new StoredNode(row.getString("name"), row.getLong("job_id"),
                            (state != null) ? JobState.of(state) : null));
                });
        return found;
    }

    @Override
    public @Nullable NodeOfJob nodeOfJob(long jobId) {
        List<NodeOfJob> found = jdbc.query(nodeOfJob, (params) -> params.int8("job_id", jobId),
                (row) -> new NodeOfJob(row.getLong("workflow_id"), row.getString("workflow_name"),
                        row.getString("name"), strings(row.getArray("parents"))));
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public Map<String, String> outputs(long workflowId, Collection<String> names) {
        Map<String, String> found = new LinkedHashMap<>();
        jdbc.query(outputs, (params) -> params.int8("workflow_id", workflowId).array("names", "text", names.toArray()),
                (row) -> found.put(row.getString("name"), row.getString("output")));
        return found;
    }

    @Override
    public @Nullable WorkflowInfo workflow(long id) {
        List<WorkflowInfo> found = jdbc.query(workflow, (params) -> params.int8("id", id), JdbcWorkflowRepository::info);
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public List<WorkflowInfo> workflows(WorkflowQuery query) {
        String key = ((query.name() != null) ? "n" : "") + ((query.state() != null) ? "s" : "");
        Sql page = pages.computeIfAbsent(key, (k) -> schema.sql(JdbcBatchRepository.pageName("workflow.page", query.name(), query.state()), """
                SELECT w.id, w.name, w.created_at, %s, w.compensation_id, cs.state AS compensation_state, c.*
                FROM (SELECT * FROM {schema}.workflow
                      WHERE id < :before %s%s
                      ORDER BY id DESC LIMIT :limit) AS w
                LEFT JOIN LATERAL (%s) AS c ON true
                %s
                ORDER BY w.id DESC""".formatted(FINISHED_AT, k.contains("n") ? "AND name = :name " : "",
                k.contains("s") ? "AND state = :state " : "", workflowCounts.countsQuery("workflow_id = w.id"),
                compensationStateJoin())));
        return jdbc.query(page, (params) -> {
            params.int8("before", (query.beforeId() != null) ? query.beforeId() : Long.MAX_VALUE)
                .int4("limit", query.limit());
            if (query.name() != null) {
                params.text("name", query.name());
            }
            if (query.state() != null) {
                params.text("state", query.state().value());
            }
        }, JdbcWorkflowRepository::info);
    }

    /**
     * The state of each listed workflow's compensation ({@code cs.state}), derived from the compensating workflow's
     * counts as the workflow's own state is: the state the squeeze stores lags until the next maintenance pass
     * (and stays behind for good where no node runs maintenance). No row when the compensation expired (its
     * counts went with it) or there is none; the gate on {@code cw.id} keeps the latter from reading the counts.
     */
    private String compensationStateJoin() {
        return """
                LEFT JOIN {schema}.workflow cw ON cw.id = w.compensation_id
                LEFT JOIN LATERAL (SELECT %s AS state
                                   FROM (%s) AS c) AS cs ON true""".formatted(STATE_OF_COUNTS,
                workflowCounts.countsQuery("cw.id IS NOT NULL AND workflow_id = cw.id"));
    }

    private static WorkflowInfo info(ResultSet row) throws SQLException {
        WorkflowCounts counts = new WorkflowCounts(row.getLong("waiting"), row.getLong("active"), row.getLong("dead"),
                row.getLong("completed"), row.getLong("cancelled"));
        WorkflowState state = counts.state();
        long compensationId = row.getLong("compensation_id");
        WorkflowInfo.Compensation compensation = row.wasNull() ? null
                : new WorkflowInfo.Compensation(compensationId, compensationStatus(row.getString("compensation_state")));
        return new WorkflowInfo(row.getLong("id"), row.getString("name"), state, counts,
                Objects.requireNonNull(JobLookups.instant(row.getTimestamp("created_at"))),
                state.isFinished() ? JobLookups.instant(row.getTimestamp("finished_at")) : null, compensation);
    }

    /** A compensation's status from its workflow's state (null: expired before the workflow it undid). */
    private static String compensationStatus(@Nullable String state) {
        if (state == null || "completed".equals(state)) {
            return (state == null) ? "expired" : "compensated";
        }
        return "running".equals(state) ? "compensating" : "compensation-failed";
    }

    @Override
    public List<WorkflowNodeInfo> nodePage(long workflowId, long afterJobId, int limit) {
        return jdbc.query(nodePage, (params) -> params.int8("workflow_id", workflowId).int8("after", afterJobId)
            .int4("limit", limit), (row) -> {
                String state = row.getString("state");
                return new WorkflowNodeInfo(row.getString("name"), row.getLong("job_id"), row.getString("queue"),
                        (state != null) ? JobState.of(state) : JobState.CANCELLED, strings(row.getArray("parents")),
                        row.getString("error"));
            });
    }

    @Override
    public List<Long> unfinishedJobIds(long workflowId) {
        return jdbc.query(unfinished, (params) -> params.int8("workflow_id", workflowId), (row) -> row.getLong(1));
    }

    @Override
    public Map<String, Long> countsByState() {
        Map<String, Long> counts = new LinkedHashMap<>();
        jdbc.query(countsByState, Jdbc.Binder.NONE, (row) -> counts.put(row.getString(1), row.getLong(2)));
        return counts;
    }

    @Override
    public long squeeze() {
        return jdbc.count(squeeze, (params) -> params.text("lock", "pgqueue.squeeze-workflows." + schema.name()));
    }

    @Override
    public int expire(Duration retention, int limit) {
        return (int) jdbc.count(expire, (params) -> params.int8("retention_ms", retention.toMillis()).int4("limit", limit));
    }

    /** The names as a JSON array of strings. */
    static String jsonArray(List<String> names) {
        StringBuilder json = new StringBuilder("[");
        for (String name : names) {
            if (json.length() > 1) {
                json.append(',');
            }
            json.append('"');
            for (char c : PostgresText.text(name).toCharArray()) {
                if (c == '"' || c == '\\') {
                    json.append('\\').append(c);
                }
                else if (c < 0x20) {
                    json.append(String.format("\\u%04x", (int) c));
                }
                else {
                    json.append(c);
                }
            }
            json.append('"');
        }
        return json.append(']').toString();
    }

    private static List<String> strings(@Nullable Array array) throws SQLException {
        if (array == null) {
            return List.of();
        }
        Object[] values = (Object[]) array.getArray();
        return new ArrayList<>(Arrays.stream(values).map(String::valueOf).toList());
    }
}
