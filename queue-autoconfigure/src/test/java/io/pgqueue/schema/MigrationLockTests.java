package io.pgqueue.schema;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.pgqueue.internal.schema.QueueFlywayConfigurationCustomizer;
import io.pgqueue.internal.schema.QueueSchemaInitializer;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A migration that needs a table lock another transaction holds (a report, a long batch, pg_dump): each attempt
 * waits at most {@code pgqueue.schema.lock-timeout}, rolls back and lets the queue's traffic through, then tries
 * again; it succeeds once the lock is free, or fails startup naming the properties. Before, it waited as long
 * as the other transaction, and all queue traffic queued behind its lock request.
 */
@ExtendWith(OutputCaptureExtension.class)
class MigrationLockTests {

    private static final TestDatabase database = TestPostgres.createDatabase(MigrationLockTests.class);

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    /** pgqueue's migrations plus one of a "later release" that alters the job table. */
    private ApplicationContextRunner runner(String schema, String... properties) {
        return QueueContextRunners.on(database)
            .withPropertyValues("pgqueue.schema.name=" + schema, "pgqueue.maintenance.enabled=false")
            .withPropertyValues(properties)
            .withBean(QueueFlywayConfigurationCustomizer.class, () -> (configuration) -> configuration
                .locations(QueueSchemaInitializer.LOCATION, "classpath:io/pgqueue/testmigration/locking"));
    }

    @Test
    void aMigrationWaitsInBoundedAttemptsAndSucceedsOnceTheLockIsFree(CapturedOutput output) throws Exception {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.schema.name=waits").run((context) -> {
        });
        try (Connection locker = database.connect(); Statement statement = locker.createStatement()) {
            locker.setAutoCommit(false);
            statement.execute("LOCK TABLE waits.job IN ACCESS SHARE MODE");
            CompletableFuture<Void> release = CompletableFuture.runAsync(() -> {
                // two attempts seen waiting for the lock, with the queue's traffic free in between: let go
                await().atMost(Duration.ofSeconds(30)).until(() -> output.toString().contains("trying again (attempt 3"));
                try {
                    locker.commit();
                }
                catch (java.sql.SQLException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            runner("waits", "pgqueue.schema.lock-timeout=300ms", "pgqueue.schema.lock-attempts=20")
                .run((context) -> assertThat(context).hasNotFailed());
            release.get(30, TimeUnit.SECONDS);
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'waits' "
                + "AND table_name = 'job' AND column_name = 'later_release_column'", Long.class)).isOne();
    }

    @Test
    void aLockHeldThroughEveryAttemptFailsStartupNamingTheProperties() throws Exception {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.schema.name=held").run((context) -> {
        });
        try (Connection locker = database.connect(); Statement statement = locker.createStatement()) {
            locker.setAutoCommit(false);
            statement.execute("LOCK TABLE held.job IN ACCESS SHARE MODE");
            runner("held", "pgqueue.schema.lock-timeout=200ms", "pgqueue.schema.lock-attempts=2").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("lock");
                assertThat(context.getStartupFailure()).hasStackTraceContaining("pgqueue.schema.lock-timeout");
            });
            // the queue's own traffic was never stuck behind the migration: a send goes through at once
            try (Connection other = database.connect(); Statement send = other.createStatement()) {
                send.setQueryTimeout(5);
                send.execute("SELECT held.send('still-flowing', '{}')");
            }
            locker.rollback();
        }
    }
}
