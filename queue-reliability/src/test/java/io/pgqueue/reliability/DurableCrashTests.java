package io.pgqueue.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.reliability.CrashWorker.DurableWork;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three worker JVMs run 500 durable jobs of five steps (one transactional, a sleep after the second) on LEASE and
 * TRANSACTIONAL queues while workers are killed with SIGKILL every few seconds and replaced. No completed step runs
 * again, the transactional steps' writes happen exactly once, every job finishes with the results its steps
 * recorded, and the counters equal the rows.
 */
class DurableCrashTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DurableCrashTests.class);

    private static final int JOBS = 500;

    private static final int KILLS = 5;

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    private final ApplicationContextRunner publisher = Publishers.on(database);

    @Test
    void killedWorkersNeverRunACompletedStepAgainAndFinishEveryJob() throws Exception {
        jdbc.execute(CrashWorker.DURABLE_TABLES);
        publisher.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            for (int i = 0; i < JOBS; i++) {
                template.send((i % 2 == 0) ? "durable-lease" : "durable-tx", new DurableWork(i));
            }
        });

        Set<Long> killed;
        Random random = new Random();
        try (WorkerFleet workers = new WorkerFleet(database.jdbcUrl(), database.username(), database.password(),
                List.of("--pgqueue.listener.max-attempts=50", "--pgqueue.retention.interval=1h"))) {
            workers.start(3);
            for (int kill = 0; kill < KILLS; kill++) {
                long progress = done();
                await().atMost(Duration.ofSeconds(90)).until(() -> done() >= progress + 40 || done() >= JOBS);
                if (done() >= JOBS) {
                    break;
                }
                workers.killAndReplace(random.nextInt(workers.size()));
            }
            await().atMost(Duration.ofSeconds(180)).until(() -> done() >= JOBS && unfinished() == 0);
            workers.stopGracefully();
            killed = workers.killed();
        }

        assertThat(killed).as("workers killed").hasSizeGreaterThanOrEqualTo(2);
        // every job finished, once for a TRANSACTIONAL job (its end commits with it)
        assertThat(count("SELECT count(DISTINCT job_id) FROM durable_done")).isEqualTo(JOBS);
        assertThat(count("SELECT count(*) FROM durable_done WHERE queue = 'durable-tx'")).isEqualTo(JOBS / 2);
        // a transactional step's writes: exactly once per job
        assertThat(count("SELECT count(*) FROM tx_effect")).isEqualTo(JOBS);
        assertThat(count("SELECT count(DISTINCT job_id) FROM tx_effect")).isEqualTo(JOBS);
        // no completed step ran again: after the run whose token the job got back, no run of that step followed
        assertThat(jdbc.queryForList("""
                SELECT d.job_id, r.step FROM durable_done d
                JOIN LATERAL unnest(d.tokens) WITH ORDINALITY AS t(token, n) ON t.token <> 'tx'
                JOIN step_run kept ON kept.job_id = d.job_id AND kept.token = t.token
                JOIN step_run r ON r.job_id = d.job_id AND r.step = kept.step AND r.at > kept.at
                """)).as("steps that ran again after they completed").isEmpty();
        // every job got back the token of a run that happened (its steps' stored results), the same on every run
        assertThat(count("""
                SELECT count(*) FROM durable_done d, unnest(d.tokens) AS t(token)
                WHERE t.token <> 'tx' AND NOT EXISTS (SELECT 1 FROM step_run r WHERE r.job_id = d.job_id AND r.token = t.token)
                """)).isZero();
        assertThat(count("SELECT count(*) FROM (SELECT job_id FROM durable_done GROUP BY job_id "
                + "HAVING count(DISTINCT tokens) > 1) AS differing")).isZero();
        long reruns = count("SELECT count(*) - count(DISTINCT (job_id, step)) FROM step_run");
        System.out.println("Durable jobs: " + JOBS + " after " + killed.size() + " SIGKILLs; step bodies run again "
                + "(killed between a body and its checkpoint): " + reruns);
        publisher.run((context) -> assertThat(context.getBean(QueueAdmin.class).reconcile()).isEmpty());
    }

    private long done() {
        return count("SELECT count(DISTINCT job_id) FROM durable_done");
    }

    private long unfinished() {
        return count("SELECT count(*) FROM pgqueue.job WHERE queue IN ('durable-lease', 'durable-tx')");
    }

    private long count(String sql) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return (count != null) ? count : 0;
    }
}
