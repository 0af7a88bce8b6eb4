package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With a pool that hands out connections with auto-commit off (a common JPA tuning), pgqueue's own
 * statements outside a caller's transaction still commit: sends are stored, LEASE claims and
 * acknowledgements take effect.
 */
class AutoCommitOffTests {

    private static final TestDatabase database = TestPostgres.createDatabase(AutoCommitOffTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("spring.datasource.hikari.auto-commit=false");

    /** Sees only what was committed: its own connections. */
    private final Jobs jobs = new Jobs(database.dataSource());

    static class Handler {

        final Set<Long> handled = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "autocommit-lease")
        void handle(Integer payload, JobContext job) {
            handled.add(job.id());
        }
    }

    @Test
    void sendsOutsideATransactionAreCommitted() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            for (int i = 0; i < 100; i++) {
                template.send("autocommit-sent", i);
            }
            template.sendBatch("autocommit-sent", IntStream.range(0, 100).boxed().toList());

            assertThat(jobs.count("autocommit-sent")).isEqualTo(200);
            assertThat(context.getBean(QueueAdmin.class).queue("autocommit-sent").orElseThrow().counts().ready())
                .isEqualTo(200);
        });
    }

    @Test
    void leaseClaimsAndAcknowledgementsAreCommitted() {
        Handler handler = new Handler();
        runner.withBean(Handler.class, () -> handler).run((context) -> {
            List<Long> ids = context.getBean(QueueTemplate.class)
                .sendBatch("autocommit-lease", IntStream.range(0, 50).boxed().toList())
                .jobIds();

            await().atMost(Duration.ofSeconds(15)).until(() -> handler.handled.size() == 50);
            await().atMost(Duration.ofSeconds(15)).until(() -> jobs.count("autocommit-lease") == 0);
            assertThat(handler.handled).containsExactlyInAnyOrderElementsOf(ids);
        });
    }
}
