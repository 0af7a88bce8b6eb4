package io.pgqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
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
 * Three worker JVMs run 100 sagas (a → b → c, each with a compensation, then a step that fails for good) while
 * workers are killed with SIGKILL every few seconds and replaced. Every saga's compensations run exactly once
 * (TRANSACTIONAL compensations, recorded in their transaction), in reverse order (c, then b, then a), and every
 * saga ends compensated.
 */
class CompensationCrashTests {

    private static final TestDatabase database = TestPostgres.createDatabase(CompensationCrashTests.class);

    private static final int SAGAS = 100;

    private static final int KILLS = 4;

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    private final ApplicationContextRunner publisher = Publishers.on(database);

    @Test
    void killedWorkersRunEveryCompensationOnceInReverseOrder() throws Exception {
        jdbc.execute(CrashWorker.UNDO_RUN_TABLE);
        List<Long> ids = new ArrayList<>();
        publisher.run((context) -> {
            WorkflowOperations workflows = context.getBean(WorkflowOperations.class);
            for (int i = 0; i < SAGAS; i++) {
                String saga = "saga-" + i;
                ids.add(workflows.submit(Workflow.builder(saga)
                    .node(WorkflowNode.of("a", "saga-crash-do", saga + ":a").compensate("saga-crash-undo", saga + ":a"))
                    .node(WorkflowNode.of("b", "saga-crash-do", saga + ":b").after("a")
                        .compensate("saga-crash-undo", saga + ":b"))
                    .node(WorkflowNode.of("c", "saga-crash-do", saga + ":c").after("b")
                        .compensate("saga-crash-undo", saga + ":c"))
                    .node(WorkflowNode.of("d", "saga-crash-fail", saga + ":d").after("c")
                        .options(SendOptions.builder().maxAttempts(1).build()))
                    .build()).id());
            }
        });

        Set<Long> killed;
        Random random = new Random();
        try (WorkerFleet workers = new WorkerFleet(database.jdbcUrl(), database.username(), database.password(),
                List.of("--pgqueue.listener.max-attempts=20", "--pgqueue.maintenance.interval=200ms"))) {
            workers.start(3);
            for (int kill = 0; kill < KILLS; kill++) {
                long progress = undone();
                await().atMost(Duration.ofSeconds(90)).until(() -> undone() >= progress + 40 || undone() >= 3L * SAGAS);
                if (undone() >= 3L * SAGAS) {
                    break;
                }
                workers.killAndReplace(random.nextInt(workers.size()));
            }
            await().atMost(Duration.ofSeconds(180)).until(() -> undone() >= 3L * SAGAS);
            workers.stopGracefully();
            killed = workers.killed();
        }

        assertThat(killed).as("workers killed").hasSizeGreaterThanOrEqualTo(1);
        assertThat(count("SELECT count(*) FROM undo_run")).as("compensations run").isEqualTo(3L * SAGAS);
        assertThat(count("SELECT count(DISTINCT what) FROM undo_run")).isEqualTo(3L * SAGAS);
        // reverse order: in every saga c was undone before b, and b before a
        assertThat(jdbc.queryForList("""
                SELECT split_part(c.what, ':', 1) FROM undo_run c
                JOIN undo_run b ON b.what = split_part(c.what, ':', 1) || ':b'
                JOIN undo_run a ON a.what = split_part(c.what, ':', 1) || ':a'
                WHERE c.what LIKE '%:c' AND NOT (c.at < b.at AND b.at < a.at)""", String.class))
            .as("sagas undone out of order").isEmpty();
        System.out.println("Sagas compensated: " + SAGAS + " after " + killed.size() + " SIGKILLs");
        publisher.withPropertyValues("pgqueue.maintenance.interval=200ms").run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream().allMatch((id) -> {
                var compensation = admin.workflow(id).orElseThrow().compensation();
                return compensation != null && compensation.status().equals("compensated");
            }));
            assertThat(admin.reconcile()).isEmpty();
        });
    }

    private long undone() {
        return count("SELECT count(*) FROM undo_run");
    }

    private long count(String sql) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return (count != null) ? count : 0;
    }
}
