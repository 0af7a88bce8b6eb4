package io.pgqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchState;
import io.pgqueue.reliability.CrashWorker.MemberWork;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three worker JVMs drain 300 batches of 10 members on LEASE and TRANSACTIONAL queues — one batch in five with
 * a member that dies — while workers are killed with SIGKILL every few seconds and replaced. Every callback
 * fires exactly once (onSuccess only for batches without a death, onFirstDeath only for the others, onComplete
 * for all), none before its batch's members finished, and the batch counts equal the rows.
 */
class BatchCrashTests {

    private static final TestDatabase database = TestPostgres.createDatabase(BatchCrashTests.class);

    private static final int BATCHES = 300;

    private static final int MEMBERS = 10;

    private static final int KILLS = 5;

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    private final ApplicationContextRunner publisher = Publishers.on(database)
        .withPropertyValues("pgqueue.queues.b-crash-done.mode=transactional");

    @Test
    void killedWorkersFireEveryCallbackExactlyOnceNeverEarly() throws Exception {
        jdbc.execute(CrashWorker.CALLBACK_RUN_TABLE);
        List<Long> ids = new ArrayList<>();
        List<Long> poisoned = new ArrayList<>();
        SendOptions once = SendOptions.builder().maxAttempts(1).build();
        publisher.run((context) -> {
            BatchOperations batches = context.getBean(BatchOperations.class);
            for (int i = 0; i < BATCHES; i++) {
                long id = batches.open(Batch.builder("crash-" + i).onSuccess("b-crash-done").onComplete("b-crash-done")
                    .onFirstDeath("b-crash-done").build());
                List<MemberWork> lease = new ArrayList<>();
                List<MemberWork> transactional = new ArrayList<>();
                for (int m = 0; m < MEMBERS; m++) {
                    ((m % 2 == 0) ? lease : transactional).add(new MemberWork(i % 5 == 0 && m == 3));
                }
                batches.addAll(id, "b-crash-lease", lease);
                batches.addAll(id, "b-crash-tx", transactional, once);
                batches.seal(id);
                ids.add(id);
                if (i % 5 == 0) {
                    poisoned.add(id);
                }
            }
        });

        Set<Long> killed;
        Random random = new Random();
        try (WorkerFleet workers = new WorkerFleet(database.jdbcUrl(), database.username(), database.password(),
                List.of("--pgqueue.listener.max-attempts=20"))) {
            workers.start(3);
            for (int kill = 0; kill < KILLS; kill++) {
                long progress = callbacks();
                await().atMost(Duration.ofSeconds(90)).until(() -> callbacks() >= progress + 60 || unfinished() == 0);
                if (unfinished() == 0) {
                    break;
                }
                workers.killAndReplace(random.nextInt(workers.size()));
            }
            await().atMost(Duration.ofSeconds(180))
                .until(() -> unfinished() == 0 && callbacks() == 2L * BATCHES);
            workers.stopGracefully();
            killed = workers.killed();
        }

        assertThat(killed).as("workers killed").hasSizeGreaterThanOrEqualTo(3);
        // exactly once: one run per (batch, event), each of its own callback job
        assertThat(count("SELECT count(*) FROM callback_run")).isEqualTo(2L * BATCHES);
        assertThat(count("SELECT count(DISTINCT (batch_id, event)) FROM callback_run")).isEqualTo(2L * BATCHES);
        assertThat(count("SELECT count(DISTINCT job_id) FROM callback_run")).isEqualTo(2L * BATCHES);
        assertThat(count("SELECT count(*) FROM pgqueue.batch_callback WHERE state = 'fired'")).isEqualTo(2L * BATCHES);
        // the right events: success without a death, first death with one, complete for all
        assertThat(count("SELECT count(*) FROM callback_run WHERE event = 'complete'")).isEqualTo(BATCHES);
        assertThat(jdbc.queryForList("SELECT batch_id FROM callback_run WHERE event = 'first_death' ORDER BY batch_id",
                Long.class)).containsExactlyElementsOf(poisoned);
        assertThat(count("SELECT count(*) FROM callback_run WHERE event = 'success'"))
            .isEqualTo(BATCHES - poisoned.size());
        // none early: when onSuccess or onComplete ran, no member of its batch was unfinished
        assertThat(jdbc.queryForList("SELECT batch_id, event FROM callback_run WHERE event IN ('success', 'complete') "
                + "AND unfinished > 0")).as("callbacks that ran before their batch finished").isEmpty();
        System.out.println("Batch callbacks: " + callbacks() + " after " + killed.size() + " SIGKILLs");
        publisher.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThat(admin.reconcile()).isEmpty();
            for (long id : ids) {
                BatchInfo info = admin.batch(id).orElseThrow();
                long dead = count("SELECT count(*) FROM pgqueue.job WHERE state = 'dead' AND batch_id = " + id);
                assertThat(info.counts().dead()).as("batch %d", id).isEqualTo(dead);
                assertThat(info.counts().active()).as("batch %d", id).isZero();
                assertThat(info.counts().total()).as("batch %d", id).isEqualTo(MEMBERS);
                assertThat(info.counts().completed()).as("batch %d", id).isEqualTo(MEMBERS - dead);
                assertThat(info.state()).as("batch %d", id)
                    .isEqualTo(poisoned.contains(id) ? BatchState.FAILED : BatchState.SUCCEEDED);
            }
        });
    }

    private long callbacks() {
        return count("SELECT count(*) FROM callback_run");
    }

    private long unfinished() {
        return count("SELECT count(*) FROM pgqueue.job WHERE batch_id IS NOT NULL AND state <> 'dead'");
    }

    private long count(String sql) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return (count != null) ? count : 0;
    }
}
