package io.pgqueue.schema;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import io.pgqueue.internal.lifecycle.MigrationSession;
import io.pgqueue.internal.lifecycle.Schema;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;

import org.springframework.beans.factory.InitializingBean;

/**
 * Migrates pgqueue's tables with a private Flyway: own migration location, own schema, own history table.
 * It is deliberately not a {@code Flyway} bean, which would switch off the application's own Flyway. The
 * whole migration is one transaction on one connection that ends with the session as it found it (see
 * {@link MigrationSession}): safe behind PgBouncer in transaction mode, and nodes starting together take
 * turns.
 */
public class QueueSchemaInitializer implements InitializingBean {

    public static final String LOCATION = "classpath:io/pgqueue/db/migration";

    private static final Log logger = LogFactory.getLog(QueueSchemaInitializer.class);

    private final DataSource dataSource;

    private final ClassLoader classLoader;

    private final String schema;

    private final String historyTable;

    private final List<QueueFlywayConfigurationCustomizer> customizers;

    public QueueSchemaInitializer(DataSource dataSource, ClassLoader classLoader, String schema, String historyTable,
            List<QueueFlywayConfigurationCustomizer> customizers) {
        this.dataSource = dataSource;
        this.classLoader = classLoader;
        this.schema = schema;
        this.historyTable = historyTable;
        this.customizers = List.copyOf(customizers);
    }

    @Override
    public void afterPropertiesSet() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            MigrationSession session = MigrationSession.begin(connection, new Schema(schema));
            OneTransactionDataSource flywayDataSource = new OneTransactionDataSource(connection);
            MigrateResult result;
            try {
                result = migrate(flywayDataSource);
                if (flywayDataSource.rolledBack()) {
                    throw new IllegalStateException("pgqueue's migration of schema '" + schema
                            + "' was rolled back part-way; nothing was applied");
                }
            }
            catch (RuntimeException ex) {
                session.rollback();
                throw ex;
            }
            session.commit();
            if (result.migrationsExecuted > 0) {
                logger.info("pgqueue schema '" + schema + "' migrated to version " + result.targetSchemaVersion
                        + " (" + result.migrationsExecuted + " migrations)");
            }
        }
    }

    private MigrateResult migrate(DataSource flywayDataSource) {
        FluentConfiguration configuration = Flyway.configure(classLoader)
            .dataSource(flywayDataSource)
            .locations(LOCATION)
            .schemas(schema)
            .defaultSchema(schema)
            .createSchemas(true)
            .table(historyTable)
            // lets the tables live in a schema that already holds other objects, e.g. public
            .baselineOnMigrate(true)
            .baselineVersion("0")
            .cleanDisabled(true)
            .validateMigrationNaming(true);
        customizers.forEach((customizer) -> customizer.customize(configuration));
        return configuration.load().migrate();
    }
}
