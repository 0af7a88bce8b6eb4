package io.pgqueue.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.reliability.CrashWorker.Work;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Worker JVMs are killed with SIGKILL while they process, and replaced; nothing is lost, TRANSACTIONAL
 * effects happen exactly once, LEASE effects at least once with duplicates only from killed workers.
 */
class WorkerCrashTests {

    private static final TestDatabase database = TestPostgres.createDatabase(WorkerCrashTests.class);

    private static final int JOBS = 3000;

    private static final int KILLS = 6;

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    private final ApplicationContextRunner publisher = Publishers.on(database);

    @Test
    void killedWorkersLoseNothingAndDuplicateOnlyWhatTheyHadInFlight() throws Exception {
        jdbc.execute(CrashWorker.EFFECT_TABLE);
        publisher.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.sendBatch("crash-tx", IntStream.range(0, JOBS).mapToObj(Work::new).toList());
            template.sendBatch("crash-lease", IntStream.range(0, JOBS).mapToObj(Work::new).toList());
        });

        Set<Long> killed;
        Random random = new Random();
        try (WorkerFleet workers = new WorkerFleet(database.jdbcUrl(), database.username(), database.password(),
                List.of())) {
            workers.start(3);
            for (int kill = 0; kill < KILLS; kill++) {
                long progress = effects();
                // kill once the workers made progress since the last kill: some jobs are surely in flight
                await().atMost(Duration.ofSeconds(90)).until(() -> effects() >= progress + 250 || remaining() == 0);
                if (remaining() == 0) {
                    break;
                }
                workers.killAndReplace(random.nextInt(workers.size()));
            }
            await().atMost(Duration.ofSeconds(120)).until(() -> remaining() == 0);
            // the live workers forget the killed ones (a worker killed just before the last jobs finished may
            // have held none of them, so finishing them did not need its row gone)
            await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM pgqueue.node") == workers.size());
            workers.stopGracefully();
            killed = workers.killed();
        }

        assertThat(killed).as("workers killed").hasSizeGreaterThanOrEqualTo(3);
        // TRANSACTIONAL: every job's effect exactly once
        assertThat(count("SELECT count(*) FROM effect WHERE queue = 'crash-tx'")).isEqualTo(JOBS);
        assertThat(count("SELECT count(DISTINCT job_id) FROM effect WHERE queue = 'crash-tx'")).isEqualTo(JOBS);
        // LEASE: every job at least once; an effect that was repeated came first from a killed worker
        assertThat(count("SELECT count(DISTINCT job_id) FROM effect WHERE queue = 'crash-lease'")).isEqualTo(JOBS);
        List<Map<String, Object>> repeated = jdbc.queryForList("SELECT job_id, pid, attempt FROM effect e "
                + "WHERE queue = 'crash-lease' AND EXISTS (SELECT 1 FROM effect later WHERE later.queue = e.queue "
                + "AND later.job_id = e.job_id AND later.attempt > e.attempt)");
        assertThat(repeated).allSatisfy((effect) -> assertThat(killed).contains((Long) effect.get("pid")));
        long duplicates = count("SELECT count(*) - count(DISTINCT job_id) FROM effect WHERE queue = 'crash-lease'");
        System.out.println("LEASE duplicates after " + killed.size() + " SIGKILLs: " + duplicates
                + " (jobs in flight in killed workers)");
        // nothing left behind by the workers that stopped gracefully, and the counters still match
        assertThat(count("SELECT count(*) FROM pgqueue.job WHERE queue LIKE 'crash-%'")).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM pgqueue.node") == 0);
        publisher.run((context) -> assertThat(context.getBean(QueueAdmin.class).reconcile()).isEmpty());
    }

    private long effects() {
        return count("SELECT count(*) FROM effect");
    }

    private long remaining() {
        return count("SELECT count(*) FROM pgqueue.job WHERE queue LIKE 'crash-%' AND state <> 'dead'");
    }

    private long count(String sql) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return (count != null) ? count : 0;
    }
}
