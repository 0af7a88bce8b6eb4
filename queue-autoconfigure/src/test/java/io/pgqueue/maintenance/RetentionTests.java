package io.pgqueue.maintenance;

import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.listener.JobContext;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.support.StatementCounter;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RetentionTests {

    private static final TestDatabase database = TestPostgres.createDatabase(RetentionTests.class);

    private final Jobs jobs = new Jobs(database.dataSource());

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.history.enabled=true", "pgqueue.history.retention=1d",
                "pgqueue.retention.dead=7d", "pgqueue.retention.batch-size=10", "pgqueue.retention.interval=1h");

    @Test
    void retentionDeletesOnlyWhatIsPastItsRetentionInBoundedBatches() {
        StatementCounter counter = new StatementCounter("now() - ? * interval");
        runner.withBean(DataSource.class, () -> counter.wrap(QueueContextRunners.pool(database))).run((context) -> {
            jobs.jdbc().update("INSERT INTO pgqueue.job (queue, state, payload, dead_at) "
                    + "SELECT 'old', 'dead', '{}', now() - interval '8 days' FROM generate_series(1, 25)");
            jobs.jdbc().update("INSERT INTO pgqueue.job (queue, state, payload, dead_at) "
                    + "SELECT 'old', 'dead', '{}', now() - interval '6 days' FROM generate_series(1, 5)");
            // history leaves by whole partitions; rows only the default partition had room for are deleted
            jobs.jdbc().update("ALTER TABLE pgqueue.job_history DETACH PARTITION pgqueue.job_history_initial");
            jobs.jdbc().update("INSERT INTO pgqueue.job_history (id, queue, payload, attempts, created_at, finished_at) "
                    + "SELECT g, 'old', '{}', 1, now(), now() - interval '2 days' FROM generate_series(1001, 1012) g");
            jobs.jdbc().update("INSERT INTO pgqueue.job_history (id, queue, payload, attempts, created_at, finished_at) "
                    + "SELECT g, 'old', '{}', 1, now(), now() - interval '1 hour' FROM generate_series(2001, 2003) g");
            counter.reset();

            long deleted = context.getBean(QueueMaintenance.class).deleteOldRows();

            assertThat(deleted).isEqualTo(25 + 12);
            // dead: 10 + 10 + 5; history's default partition: 10 + 2; finished workflows and batches: none
            assertThat(counter.count()).isEqualTo(7);
            assertThat(jobs.count("old", "dead")).isEqualTo(5);
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job_history WHERE queue = 'old'",
                    Long.class)).isEqualTo(3);
        });
    }

    static class Finisher {

        @QueueListener(queue = "kept", concurrency = "1")
        void handle(String text, JobContext job) {
        }

        @QueueListener(queue = "kept-tx", mode = "TRANSACTIONAL", concurrency = "1")
        void handleInTransaction(String text) {
        }
    }

    @Test
    void finishedJobsAreCopiedToHistoryInBothModes() {
        runner.withBean(Finisher.class).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long lease = template.send("kept", "a");
            long transactional = template.send("kept-tx", "b");

            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.jdbc()
                .queryForObject("SELECT count(*) FROM pgqueue.job_history WHERE id IN (?, ?)", Long.class, lease,
                        transactional) == 2);
            assertThat(jobs.jdbc().queryForList("SELECT payload #>> '{}' FROM pgqueue.job_history WHERE id IN (?, ?) "
                    + "ORDER BY id", String.class, lease, transactional)).isEqualTo(List.of("a", "b"));
        });
    }

}
