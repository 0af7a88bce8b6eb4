package io.pgqueue.autoconfigure;

import java.sql.Connection;
import java.sql.Statement;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgqueue.JobPayloadCodec;
import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.internal.schema.QueueSchemaInitializer;
import io.pgqueue.internal.schema.QueueSchemaValidator;
import io.pgqueue.metrics.MicrometerJobObserver;
import io.pgqueue.metrics.QueueMetrics;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcOperations;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

class PgQueueAutoConfigurationTests {

    private static final TestDatabase database = TestPostgres.createDatabase(PgQueueAutoConfigurationTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.on(database);

    @Test
    void providesTemplateAndMigratesTheSchema() {
        runner.run((context) -> {
            assertThat(context).hasNotFailed()
                .hasSingleBean(QueueTemplate.class)
                .hasSingleBean(QueueSchemaInitializer.class)
                .doesNotHaveBean(QueueSchemaValidator.class);
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            assertThat(jdbc.queryForList("SELECT version FROM pgqueue.pgqueue_schema_history WHERE success "
                    + "AND version IS NOT NULL ORDER BY installed_rank", String.class)).contains("1");
        });
    }

    @Test
    void registersNoBeanOfATypeBootWatches() {
        runner.run((context) -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(Flyway.class)
            .doesNotHaveBean(JdbcTemplate.class)
            .doesNotHaveBean(JdbcOperations.class)
            .doesNotHaveBean(NamedParameterJdbcOperations.class)
            .doesNotHaveBean(JdbcClient.class)
            .doesNotHaveBean(TaskScheduler.class));
    }

    @Test
    void addsNoTransactionManagerOrJsonMapperOfItsOwn() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(
                org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                PgQueueAutoConfiguration.class))
            .withPropertyValues(database.springProperties())
            .run((context) -> assertThat(context).hasNotFailed()
                .hasSingleBean(QueueTemplate.class)
                .doesNotHaveBean(PlatformTransactionManager.class)
                .doesNotHaveBean(JsonMapper.class));
    }

    @Test
    void usesTheApplicationsJsonMapper() {
        runner.run((context) -> assertThat(context.getBean(JobPayloadCodec.class).mapper())
            .isSameAs(context.getBean(JsonMapper.class)));
    }

    @Test
    void backsOffWithoutADataSource() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PgQueueAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueTemplate.class));
    }

    @Test
    void backsOffWhenDisabled() {
        runner.withPropertyValues("pgqueue.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(QueueTemplate.class)
                .doesNotHaveBean(QueueSchemaInitializer.class)
                .doesNotHaveBean(PgQueueProperties.class));
    }

    @Test
    void backsOffForUserDefinedBeans() {
        QueueTemplate userTemplate = mock(QueueTemplate.class);
        QueueAdmin userAdmin = mock(QueueAdmin.class);
        runner.withBean("myTemplate", QueueTemplate.class, () -> userTemplate)
            .withBean("myAdmin", QueueAdmin.class, () -> userAdmin)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(QueueTemplate.class)).isSameAs(userTemplate);
                assertThat(context.getBean(QueueAdmin.class)).isSameAs(userAdmin);
            });
    }

    @Test
    void metricsNeedAMeterRegistryAndCanBeSwitchedOff() {
        ApplicationContextRunner withMetrics = runner
            .withConfiguration(AutoConfigurations.of(PgQueueMetricsAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new);
        withMetrics.run((context) -> assertThat(context).hasSingleBean(QueueMetrics.class)
            .hasSingleBean(MicrometerJobObserver.class));
        withMetrics.withPropertyValues("pgqueue.metrics.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueMetrics.class));
        runner.withConfiguration(AutoConfigurations.of(PgQueueMetricsAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueMetrics.class));
        withMetrics.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
            .run((context) -> assertThat(context).doesNotHaveBean(QueueMetrics.class));
    }

    @Test
    void maintenanceCanBeSwitchedOff() {
        runner.run((context) -> assertThat(context).hasSingleBean(QueueMaintenance.class));
        runner.withPropertyValues("pgqueue.maintenance.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueMaintenance.class)
                .hasSingleBean(QueueAdmin.class));
    }

    @Test
    void invalidSchemaNameFailsStartupNamingTheProperty() {
        runner.withPropertyValues("pgqueue.schema.name=x; drop table y").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageStartingWith("Property pgqueue.schema.name with value 'x; drop table y' is invalid: "
                        + "Invalid schema name 'x; drop table y'");
        });
    }

    @Test
    void invalidTemplateSettingFailsStartupNamingTheProperty() {
        runner.withPropertyValues("pgqueue.template.batch-chunk-size=0").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessage("Property pgqueue.template.batch-chunk-size with value '0' is invalid: must be at least 1");
        });
    }

    @Test
    void aHistoryPartitionIntervalThatDoesNotTileDaysFailsStartupNamingTheProperty() {
        for (String interval : new String[] { "5h", "90m", "36h" }) {
            runner.withPropertyValues("pgqueue.history.partition-interval=" + interval).run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageStartingWith("Property pgqueue.history.partition-interval with value")
                    .hasMessageContaining("must be whole hours dividing a day");
            });
        }
        runner.withPropertyValues("pgqueue.history.partition-interval=6h", "pgqueue.history.partitions-ahead=2")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void withMigrationOffMissingTablesFailStartupWithInstructions() {
        runner.withPropertyValues("pgqueue.schema.migrate=false", "pgqueue.schema.name=not_migrated").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("pgqueue.schema.migrate=false but schema 'not_migrated' lacks the table(s) [job, ")
                .hasMessageContaining("io/pgqueue/db/migration/")
                .hasMessageContaining("search_path=not_migrated");
        });
    }

    @Test
    void withMigrationOffAnExistingSchemaIsOnlyValidated() throws Exception {
        runner.withPropertyValues("pgqueue.schema.name=premigrated").run((context) -> assertThat(context).hasNotFailed());
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE premigrated.pgqueue_schema_history");
        }

        runner.withPropertyValues("pgqueue.schema.migrate=false", "pgqueue.schema.name=premigrated").run((context) -> {
            assertThat(context).hasNotFailed()
                .hasSingleBean(QueueSchemaValidator.class)
                .doesNotHaveBean(QueueSchemaInitializer.class);
            assertThat(new JdbcTemplate(database.dataSource()).queryForObject(
                    "SELECT to_regclass('premigrated.pgqueue_schema_history') IS NULL", Boolean.class))
                .isTrue();
        });
    }

    @Test
    void withMigrationOffAnOlderOrNewerSchemaFailsStartupNamingBothVersions() throws Exception {
        runner.withPropertyValues("pgqueue.schema.name=versioned").run((context) -> assertThat(context).hasNotFailed());
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

        jdbc.execute("DROP FUNCTION versioned.schema_version()");
        runner.withPropertyValues("pgqueue.schema.migrate=false", "pgqueue.schema.name=versioned").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("schema 'versioned' is at version 4 or older, and this pgqueue needs version 17")
                .hasMessageContaining("from V5 on");
        });

        jdbc.execute("CREATE FUNCTION versioned.schema_version() RETURNS integer LANGUAGE sql AS 'SELECT 99'");
        jdbc.execute("CREATE OR REPLACE FUNCTION versioned.schema_compatible_from() RETURNS integer LANGUAGE sql AS 'SELECT 95'");
        runner.withPropertyValues("pgqueue.schema.migrate=false", "pgqueue.schema.name=versioned").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("schema 'versioned' is at version 99, newer than this pgqueue knows (version 17)");
        });
    }

    @Test
    void withMigrationOffANewerSchemaThatSaysItIsCompatibleStarts() {
        runner.withPropertyValues("pgqueue.schema.name=rolling").run((context) -> assertThat(context).hasNotFailed());
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        // what a newer pgqueue's migration leaves during a rolling upgrade: a higher version, readable from 9 on
        jdbc.execute("CREATE OR REPLACE FUNCTION rolling.schema_version() RETURNS integer LANGUAGE sql AS 'SELECT 18'");
        jdbc.execute("CREATE OR REPLACE FUNCTION rolling.schema_compatible_from() RETURNS integer LANGUAGE sql AS 'SELECT 9'");
        runner.withPropertyValues("pgqueue.schema.migrate=false", "pgqueue.schema.name=rolling")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void withoutFlywayOnTheClasspathTheSchemaIsValidated() {
        runner.withClassLoader(new FilteredClassLoader(Flyway.class))
            .withPropertyValues("pgqueue.schema.name=no_flyway")
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("lacks the table(s)");
            });
    }

    @Test
    void schemaNameIsConfigurable() {
        runner.withPropertyValues("pgqueue.schema.name=jobs_elsewhere").run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("q", "x");
            assertThat(new JdbcTemplate(database.dataSource())
                .queryForObject("SELECT count(*) FROM jobs_elsewhere.job WHERE id = ?", Long.class, id)).isOne();
        });
    }

    @Test
    void schemaCanBePublicThroughTheBaseline() throws Exception {
        TestDatabase other = TestPostgres.createDatabase("public_schema");
        try (Connection connection = other.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE app_table (id int)");
        }
        QueueContextRunners.on(other).withPropertyValues("pgqueue.schema.name=public").run((context) -> {
            assertThat(context).hasNotFailed();
            long id = context.getBean(QueueTemplate.class).send("q", "x");
            assertThat(new JdbcTemplate(other.dataSource())
                .queryForObject("SELECT count(*) FROM public.job WHERE id = ?", Long.class, id)).isOne();
        });
    }
}
