package io.pgqueue.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.reliability.CrashWorker.NodeWork;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three worker JVMs run 200 workflows of mixed shapes — an order (two parallel parents, then two steps), a
 * chain, a layered graph with three parents per node, and a splitter that fans out at run time and a merge
 * after its chunks — on LEASE and TRANSACTIONAL queues, while workers are killed with SIGKILL every few seconds
 * and replaced. No node starts before all its parents committed (each run records how many of its parents it
 * saw completed), TRANSACTIONAL nodes run exactly once, every workflow completes, nothing is left waiting, no
 * edge is left behind, and the queue and workflow counts equal their rows.
 */
class WorkflowCrashTests {

    private static final TestDatabase database = TestPostgres.createDatabase(WorkflowCrashTests.class);

    private static final int WORKFLOWS = 200;

    private static final int KILLS = 6;

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    private final ApplicationContextRunner publisher = Publishers.on(database);

    @Test
    void killedWorkersNeverStartANodeBeforeItsParentsAndLeaveNothingWaiting() throws Exception {
        jdbc.execute(CrashWorker.NODE_RUN_TABLE);
        Random random = new Random();
        long[] nodes = new long[1];
        publisher.run((context) -> {
            WorkflowOperations workflows = context.getBean(WorkflowOperations.class);
            for (int i = 0; i < WORKFLOWS; i++) {
                Workflow workflow = shape(i);
                nodes[0] += workflow.nodes().size() + ((i % 4 == 3) ? 6 : 0);
                workflows.submit(workflow);
            }
        });

        Set<Long> killed;
        try (WorkerFleet workers = new WorkerFleet(database.jdbcUrl(), database.username(), database.password(),
                List.of("--pgqueue.listener.max-attempts=20"))) {
            workers.start(3);
            for (int kill = 0; kill < KILLS; kill++) {
                long progress = runs();
                await().atMost(Duration.ofSeconds(90)).until(() -> runs() >= progress + 150 || unfinished() == 0);
                if (unfinished() == 0) {
                    break;
                }
                workers.killAndReplace(random.nextInt(workers.size()));
            }
            await().atMost(Duration.ofSeconds(180)).until(() -> unfinished() == 0);
            workers.stopGracefully();
            killed = workers.killed();
        }

        assertThat(killed).as("workers killed").hasSizeGreaterThanOrEqualTo(3);
        assertThat(count("SELECT count(*) FROM pgqueue.workflow_node")).isEqualTo(nodes[0]);
        // every node ran, none before all its parents had committed
        assertThat(count("SELECT count(DISTINCT job_id) FROM node_run")).isEqualTo(nodes[0]);
        assertThat(jdbc.queryForList("SELECT node, parents, parents_done FROM node_run WHERE parents_done <> parents"))
            .as("runs that started before their parents committed").isEmpty();
        // TRANSACTIONAL nodes exactly once
        assertThat(count("SELECT count(*) - count(DISTINCT job_id) FROM node_run WHERE queue = 'wf-crash-tx'")).isZero();
        // LEASE repeats come from killed workers only
        List<Map<String, Object>> repeated = jdbc.queryForList("SELECT pid FROM node_run r WHERE queue = 'wf-crash-lease' "
                + "AND EXISTS (SELECT 1 FROM node_run later WHERE later.job_id = r.job_id AND later.attempt > r.attempt)");
        assertThat(repeated).allSatisfy((run) -> assertThat(killed).contains((Long) run.get("pid")));
        System.out.println("Workflow nodes: " + nodes[0] + ", LEASE repeats after " + killed.size() + " SIGKILLs: "
                + repeated.size());
        // every workflow completed; nothing waiting, no edge left, counts equal rows
        assertThat(count("SELECT count(*) FROM pgqueue.job WHERE queue LIKE 'wf-crash-%'")).isZero();
        assertThat(count("SELECT count(*) FROM pgqueue.job_dependency")).isZero();
        assertThat(count("SELECT count(*) FROM pgqueue.workflow_node WHERE state IS DISTINCT FROM 'completed'")).isZero();
        publisher.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThat(admin.reconcile()).isEmpty();
            List<Long> ids = jdbc.queryForList("SELECT id FROM pgqueue.workflow", Long.class);
            assertThat(ids).hasSize(WORKFLOWS).allSatisfy((id) -> {
                var info = admin.workflow(id).orElseThrow();
                assertThat(info.state()).as("workflow %d", id).isEqualTo(io.pgqueue.model.WorkflowState.COMPLETED);
                assertThat(info.counts().completed()).isEqualTo(
                        count("SELECT count(*) FROM pgqueue.workflow_node WHERE workflow_id = " + id));
            });
        });
    }

    /** Four shapes in turn, nodes spread over the LEASE and TRANSACTIONAL queues. */
    static Workflow shape(int i) {
        Workflow.Builder builder = Workflow.builder("crash-" + i);
        switch (i % 4) {
            case 0 -> builder.node(node("charge", 0)).node(node("reserve", 1))
                .node(node("ship", 2).after("charge", "reserve")).node(node("notify", 3).after("ship"));
            case 1 -> {
                for (int n = 0; n < 10; n++) {
                    builder.node((n == 0) ? node("s0", n) : node("s" + n, n).after("s" + (n - 1)));
                }
            }
            case 2 -> {
                for (int layer = 0; layer < 3; layer++) {
                    for (int n = 0; n < 3; n++) {
                        WorkflowNode node = node(layer + "-" + n, layer * 3 + n);
                        builder.node((layer == 0) ? node : node.after((layer - 1) + "-0", (layer - 1) + "-1", (layer - 1) + "-2"));
                    }
                }
            }
            default -> builder.node(WorkflowNode.of("split", "wf-crash-lease", new NodeWork(5)));
        }
        return builder.build();
    }

    private static WorkflowNode node(String name, int n) {
        return WorkflowNode.of(name, (n % 2 == 0) ? "wf-crash-lease" : "wf-crash-tx", new NodeWork(0));
    }

    private long runs() {
        return count("SELECT count(*) FROM node_run");
    }

    private long unfinished() {
        return count("SELECT count(*) FROM pgqueue.workflow_node WHERE state IS NULL");
    }

    private long count(String sql) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return (count != null) ? count : 0;
    }
}
