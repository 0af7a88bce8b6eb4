package io.pgqueue.schema;

import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.internal.schema.QueueSchemaInitializer;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with its own Flyway migrations (classpath:db/migration) and pgqueue side by side.
 */
class FlywayCoexistenceTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FlywayCoexistenceTests.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                FlywayAutoConfiguration.class, PgQueueAutoConfiguration.class))
        .withPropertyValues(database.springProperties());

    @Test
    void bothMigrateAndEachHistoryHoldsOnlyItsOwnScripts() {
        runner.run((context) -> {
            assertThat(context).hasNotFailed().hasSingleBean(Flyway.class).hasSingleBean(QueueSchemaInitializer.class);
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

            assertThat(jdbc.queryForList("SELECT script FROM public.flyway_schema_history ORDER BY installed_rank",
                    String.class))
                .containsExactly("V1__app_tables.sql", "V2__app_seeds_a_job.sql");
            assertThat(jdbc.queryForList("SELECT script FROM pgqueue.pgqueue_schema_history WHERE version IS NOT NULL "
                    + "ORDER BY installed_rank", String.class))
                .isNotEmpty()
                .allMatch((script) -> script.startsWith("V") && !script.startsWith("V1__app")
                        && !script.startsWith("V2__app"))
                .contains("V1__create_queue_tables.sql");
            // the application's V2 enqueued into pgqueue.job: pgqueue migrated first
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'seeded'", Long.class))
                .isOne();
            assertThat(jdbc.queryForObject("SELECT to_regclass('public.job') IS NULL", Boolean.class)).isTrue();
        });
    }
}
