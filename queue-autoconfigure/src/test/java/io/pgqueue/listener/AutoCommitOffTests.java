package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

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

    /**
     * Transaction synchronisation is active under NOT_SUPPORTED and SUPPORTS without a transaction on pgqueue's
     * DataSource: a send must not bind its connection to that synchronisation (nobody commits it, the pool rolls
     * it back on release), but commit on a connection of its own.
     */
    @Test
    void sendsUnderNotSupportedAndSupportsAreCommitted() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            PlatformTransactionManager transactionManager = context.getBean(PlatformTransactionManager.class);
            for (int propagation : new int[] { TransactionDefinition.PROPAGATION_NOT_SUPPORTED,
                    TransactionDefinition.PROPAGATION_SUPPORTS, TransactionDefinition.PROPAGATION_NEVER }) {
                TransactionTemplate scope = new TransactionTemplate(transactionManager);
                scope.setPropagationBehavior(propagation);
                String queue = "autocommit-scope-" + propagation;
                List<Long> ids = scope.execute((status) -> IntStream.range(0, 50)
                    .mapToObj((i) -> template.send(queue, i))
                    .toList());
                assertThat(ids).hasSize(50);
                assertThat(jobs.count(queue)).as("jobs stored by sends under propagation %d", propagation)
                    .isEqualTo(50);
            }
        });
    }

    /**
     * A transaction on another DataSource (as {@code docs/databases.md} describes for sending to a second database)
     * is not pgqueue's: the send commits on its own.
     */
    @Test
    void sendsInsideAnotherDataSourcesTransactionAreCommitted() {
        try (HikariDataSource other = QueueContextRunners.pool(database)) {
            other.setAutoCommit(false);
            TransactionTemplate otherTransaction = new TransactionTemplate(new DataSourceTransactionManager(other));
            runner.run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                otherTransaction.executeWithoutResult((status) -> IntStream.range(0, 50)
                    .forEach((i) -> template.send("autocommit-other-tx", i)));
                assertThat(jobs.count("autocommit-other-tx")).isEqualTo(50);
            });
        }
    }

    /**
     * A send beside another DataSource's transaction committed on its own, so this JVM's listeners are woken at
     * once, not when (or if) that unrelated transaction commits: here it waits until the job was handled, which on
     * main happened only at the next poll, an hour away.
     */
    @Test
    void aSendBesideAnotherDataSourcesTransactionWakesTheListenersAtOnce() {
        Handler handler = new Handler();
        try (HikariDataSource other = QueueContextRunners.pool(database)) {
            TransactionTemplate otherTransaction = new TransactionTemplate(new DataSourceTransactionManager(other));
            runner.withPropertyValues("pgqueue.listener.poll-interval=1h", "pgqueue.listener.notify=false")
                .withBean(Handler.class, () -> handler)
                .run((context) -> {
                    QueueTemplate template = context.getBean(QueueTemplate.class);
                    // a first job, woken by its send outside any transaction: the listener then waits for the next
                    long first = template.send("autocommit-lease", 1);
                    await().atMost(Duration.ofSeconds(10)).until(() -> handler.handled.contains(first));
                    boolean handledInside = Boolean.TRUE.equals(otherTransaction.execute((status) -> {
                        long id = template.send("autocommit-lease", 7);
                        return await().atMost(Duration.ofSeconds(5)).until(() -> handler.handled.contains(id), (done) -> done);
                    }));
                    assertThat(handledInside).isTrue();
                });
        }
    }

    /** A real transaction on pgqueue's DataSource is joined: its send commits or rolls back with it. */
    @Test
    void sendsInsideATransactionOnTheQueuesDataSourceFollowIt() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            transaction.executeWithoutResult((status) -> {
                template.send("autocommit-joined", 1);
                status.setRollbackOnly();
            });
            transaction.executeWithoutResult((status) -> template.send("autocommit-joined", 2));
            assertThat(jobs.count("autocommit-joined")).isEqualTo(1);
        });
    }
}
