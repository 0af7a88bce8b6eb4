package io.pgqueue.schema;

import java.sql.Connection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migration leaves the session it ran on as it found it: behind a pooler in transaction mode that session
 * is a server connection other clients get next, and a {@code search_path} left there would send their writes
 * into pgqueue's schema.
 */
class MigrationSessionStateTests {

    private static final TestDatabase database = TestPostgres.createDatabase(MigrationSessionStateTests.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                PgQueueAutoConfiguration.class))
        .withPropertyValues("pgqueue.listener.auto-startup=false", "pgqueue.maintenance.enabled=false",
                "pgqueue.scheduler.enabled=false");

    @Test
    void aFirstMigrationLeavesNoSessionSettingOnItsConnection() throws Exception {
        try (Connection session = database.connect()) {
            SingleConnectionDataSource oneSession = new SingleConnectionDataSource(session, true);
            JdbcTemplate jdbc = new JdbcTemplate(oneSession);
            List<String> before = sessionSettings(jdbc);
            // not the SingleConnectionDataSource itself: the context would close the session at shutdown
            runner.withBean(DataSource.class, () -> new DelegatingDataSource(oneSession))
                .withPropertyValues("pgqueue.schema.name=fresh_one")
                .run((context) -> assertThat(context).hasNotFailed());

            assertThat(jdbc.queryForObject("SELECT count(*) FROM fresh_one.job", Long.class)).isZero();
            assertThat(sessionSettings(jdbc)).as("session settings after the migration").isEqualTo(before);
            assertThat(jdbc.queryForObject("SELECT current_setting('role')", String.class)).isEqualTo("none");
            assertThat(jdbc.queryForObject("SELECT current_schema()", String.class)).isEqualTo("public");
        }
    }

    @Test
    void aSettingTheApplicationMadeOnTheSessionIsKept() throws Exception {
        try (Connection session = database.connect()) {
            SingleConnectionDataSource oneSession = new SingleConnectionDataSource(session, true);
            JdbcTemplate jdbc = new JdbcTemplate(oneSession);
            jdbc.execute("SET search_path = app, public");
            jdbc.execute("SET statement_timeout = '1min'");
            List<String> before = sessionSettings(jdbc);
            runner.withBean(DataSource.class, () -> new DelegatingDataSource(oneSession))
                .withPropertyValues("pgqueue.schema.name=fresh_two")
                .run((context) -> assertThat(context).hasNotFailed());

            assertThat(before).contains("search_path=app, public", "statement_timeout=60000");
            assertThat(sessionSettings(jdbc)).isEqualTo(before);
        }
    }

    @Test
    void nodesStartingTogetherTakeTurnsAndMigrateOnce() throws Exception {
        ExecutorService nodes = Executors.newFixedThreadPool(3);
        try {
            Callable<Boolean> start = () -> {
                boolean[] started = new boolean[1];
                runner.withPropertyValues(database.springProperties())
                    .withPropertyValues("pgqueue.schema.name=together")
                    .run((context) -> started[0] = context.getStartupFailure() == null
                            || fail(context.getStartupFailure()));
                return started[0];
            };
            List<Future<Boolean>> results = nodes.invokeAll(List.of(start, start, start));
            for (Future<Boolean> result : results) {
                assertThat(result.get()).isTrue();
            }
        }
        finally {
            nodes.shutdownNow();
        }
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        assertThat(jdbc.queryForObject("SELECT count(*) FROM together.pgqueue_schema_history WHERE script = ?",
                Long.class, "V1__create_queue_tables.sql")).isOne();
    }

    @Test
    void aFailedMigrationLeavesNothingBehind() throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        // a table in the way of V1 makes the migration fail part-way
        jdbc.execute("CREATE SCHEMA blocked");
        jdbc.execute("CREATE TABLE blocked.queue_state (x int)");
        runner.withPropertyValues(database.springProperties())
            .withPropertyValues("pgqueue.schema.name=blocked")
            .run((context) -> assertThat(context).hasFailed());
        assertThat(jdbc.queryForObject("SELECT to_regclass('blocked.pgqueue_schema_history') IS NULL", Boolean.class))
            .as("history of a migration that failed").isTrue();
        assertThat(jdbc.queryForObject("SELECT to_regclass('blocked.job') IS NULL", Boolean.class)).isTrue();
    }

    private static List<String> sessionSettings(JdbcTemplate jdbc) {
        return jdbc.queryForList("SELECT name || '=' || setting FROM pg_settings WHERE source = 'session' ORDER BY name",
                String.class);
    }

    private static boolean fail(Throwable failure) {
        throw new AssertionError("a node failed to start", failure);
    }
}
