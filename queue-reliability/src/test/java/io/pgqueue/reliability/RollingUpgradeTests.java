package io.pgqueue.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.model.WorkflowState;
import io.pgqueue.reliability.CrashWorker.Work;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import io.pgqueue.workflow.WorkflowOperations;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rolling upgrade: workers of the previous version ({@link #PREVIOUS}, built from this clone's history) run a
 * database they migrated; workers of this build join them (migrating whatever is new) while both take jobs, then
 * the older ones stop one by one. Jobs flow both ways: this build sends to older workers, older workers' workflow
 * nodes add nodes (a splitter's chunks) and release dependants that this build's workers run, and the other way
 * round. Nothing is lost, nothing runs twice (no worker is killed: LEASE jobs too run exactly once), no node starts
 * before its parents, and the counters still equal their rows.
 */
class RollingUpgradeTests {

    /**
     * The version before this build: main as it had landed when this test was written. Move it to the last
     * released commit at each release, so that every upgrade is tried from the version users run.
     */
    static final String PREVIOUS = "c0eb43c";

    private static final TestDatabase database = TestPostgres.createDatabase(RollingUpgradeTests.class);

    /** Jobs per queue and phase (older alone, both, this build alone after the older ones stopped). */
    private static final int JOBS = 600;

    private static final int WORKFLOWS = 24;

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    private final ApplicationContextRunner publisher = Publishers.on(database)
        .withPropertyValues("pgqueue.listener.auto-startup=false");

    @Test
    void olderAndNewerWorkersShareTheDatabaseThroughTheUpgradeLosingAndRepeatingNothing() throws Exception {
        Path olderJar = OlderBuild.soakJar(PREVIOUS);
        jdbc.execute(CrashWorker.EFFECT_TABLE);
        jdbc.execute(CrashWorker.NODE_RUN_TABLE);
        List<String> arguments = List.of("--pgqueue.listener.max-attempts=20");
        Set<Long> olderPids;
        Set<Long> newerPids;
        try (WorkerFleet older = new WorkerFleet(olderJar, database.jdbcUrl(), database.username(), database.password(),
                arguments);
                WorkerFleet newer = new WorkerFleet(database.jdbcUrl(), database.username(), database.password(),
                        arguments)) {
            // the previous version alone: it migrates the fresh database and runs what this build sends
            older.start(2);
            olderPids = older.pids();
            await().atMost(Duration.ofSeconds(60)).until(() -> tableExists("pgqueue.node") && nodes() == 2);
            send(0);
            await().atMost(Duration.ofSeconds(60)).until(() -> effects(olderPids) >= 200 && runs(olderPids) >= 40);

            // this build joins (its migrations run beside the older workers) and both take jobs
            newer.start(2);
            newerPids = newer.pids();
            await().atMost(Duration.ofSeconds(60)).until(() -> nodes() == 4);
            send(1);
            await().atMost(Duration.ofSeconds(60)).until(() -> effects(newerPids) >= 200);

            // the older workers leave one by one, as a rolling deployment replaces them
            older.stopOldestGracefully();
            send(2);
            older.stopOldestGracefully();
            await().atMost(Duration.ofSeconds(180)).until(() -> remaining() == 0 && unfinishedNodes() == 0);
            newer.stopGracefully();
        }

        // every job exactly once, in both modes, and both versions ran some of each
        for (String queue : List.of("crash-tx", "crash-lease")) {
            assertThat(count("SELECT count(*) FROM effect WHERE queue = '" + queue + "'")).as(queue).isEqualTo(3 * JOBS);
            assertThat(count("SELECT count(DISTINCT job_id) FROM effect WHERE queue = '" + queue + "'")).as(queue)
                .isEqualTo(3 * JOBS);
            assertThat(count("SELECT count(*) FROM effect WHERE queue = '" + queue + "' AND pid = ANY('"
                    + pidArray(olderPids) + "')")).as("%s run by the previous version", queue).isPositive();
            assertThat(count("SELECT count(*) FROM effect WHERE queue = '" + queue + "' AND pid = ANY('"
                    + pidArray(newerPids) + "')")).as("%s run by this build", queue).isPositive();
        }
        // every node once, none before its parents, whichever version ran the parent or added the node
        assertThat(count("SELECT count(*) - count(DISTINCT job_id) FROM node_run")).isZero();
        assertThat(jdbc.queryForList("SELECT node, parents, parents_done FROM node_run WHERE parents_done <> parents"))
            .as("runs that started before their parents committed").isEmpty();
        assertThat(count("SELECT count(*) FROM node_run WHERE pid = ANY('" + pidArray(olderPids) + "')")).isPositive();
        assertThat(count("SELECT count(*) FROM node_run WHERE pid = ANY('" + pidArray(newerPids) + "')")).isPositive();
        assertThat(count("SELECT count(*) FROM pgqueue.workflow_node")).isEqualTo(count("SELECT count(*) FROM node_run"));
        assertThat(count("SELECT count(*) FROM pgqueue.job")).isZero();
        assertThat(count("SELECT count(*) FROM pgqueue.job_dependency")).isZero();
        publisher.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThat(admin.reconcile()).as("counters that drifted from their rows").isEmpty();
            List<Long> ids = jdbc.queryForList("SELECT id FROM pgqueue.workflow", Long.class);
            assertThat(ids).hasSize(3 * WORKFLOWS)
                .allSatisfy((id) -> assertThat(admin.workflow(id).orElseThrow().state()).isEqualTo(WorkflowState.COMPLETED));
        });
    }

    /** One phase's jobs on both queues and its workflows (every shape, splitters among them), sent by this build. */
    private void send(int phase) {
        publisher.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.sendBatch("crash-tx", IntStream.range(phase * JOBS, (phase + 1) * JOBS).mapToObj(Work::new).toList());
            template.sendBatch("crash-lease", IntStream.range(phase * JOBS, (phase + 1) * JOBS).mapToObj(Work::new).toList());
            WorkflowOperations workflows = context.getBean(WorkflowOperations.class);
            for (int i = phase * WORKFLOWS; i < (phase + 1) * WORKFLOWS; i++) {
                workflows.submit(WorkflowCrashTests.shape(i));
            }
        });
    }

    private static String pidArray(Set<Long> pids) {
        return "{" + String.join(",", pids.stream().map(String::valueOf).toList()) + "}";
    }

    private boolean tableExists(String table) {
        return Boolean.TRUE.equals(jdbc.queryForObject("SELECT to_regclass(?) IS NOT NULL", Boolean.class, table));
    }

    private long nodes() {
        return count("SELECT count(*) FROM pgqueue.node");
    }

    private long effects(Set<Long> pids) {
        return count("SELECT count(*) FROM effect WHERE pid = ANY('" + pidArray(pids) + "')");
    }

    private long runs(Set<Long> pids) {
        return count("SELECT count(*) FROM node_run WHERE pid = ANY('" + pidArray(pids) + "')");
    }

    private long remaining() {
        return count("SELECT count(*) FROM pgqueue.job WHERE queue LIKE 'crash-%' OR queue LIKE 'wf-crash-%'");
    }

    private long unfinishedNodes() {
        return count("SELECT count(*) FROM pgqueue.workflow_node WHERE state IS NULL");
    }

    private long count(String sql) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return (count != null) ? count : 0;
    }
}
