package io.pgqueue.internal.schema;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

import io.pgqueue.internal.persistence.MigrationSession;
import io.pgqueue.internal.persistence.Schema;
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

    private final Duration lockTimeout;

    private final int lockAttempts;

    public QueueSchemaInitializer(DataSource dataSource, ClassLoader classLoader, String schema, String historyTable,
            List<QueueFlywayConfigurationCustomizer> customizers) {
        this(dataSource, classLoader, schema, historyTable, customizers, Duration.ofSeconds(5), 12);
    }

    /**
     * @param lockTimeout longest wait of one attempt for a table lock
     * @param lockAttempts attempts before startup fails when the locks cannot be had
     */
    public QueueSchemaInitializer(DataSource dataSource, ClassLoader classLoader, String schema, String historyTable,
            List<QueueFlywayConfigurationCustomizer> customizers, Duration lockTimeout, int lockAttempts) {
        this.dataSource = dataSource;
        this.classLoader = classLoader;
        this.schema = schema;
        this.historyTable = historyTable;
        this.customizers = List.copyOf(customizers);
        this.lockTimeout = lockTimeout;
        this.lockAttempts = lockAttempts;
    }

    /**
     * Migrates, bounding every lock wait by the lock timeout: a migration queued behind a long transaction
     * holding a table would otherwise make all queue traffic queue behind it. An attempt that could not get
     * its locks rolls back whole and is tried again after a pause, up to the number of attempts.
     */
    @Override
    public void afterPropertiesSet() throws SQLException {
        for (int attempt = 1;; attempt++) {
            try {
                migrateOnce();
                return;
            }
            catch (RuntimeException | SQLException ex) {
                if (!lockNotAvailable(ex)) {
                    throw ex;
                }
                if (attempt >= lockAttempts) {
                    throw new IllegalStateException("pgqueue could not migrate schema '" + schema + "': another "
                            + "transaction held a lock on its tables through " + attempt + " attempts of "
                            + lockTimeout.toMillis() + " ms (pgqueue.schema.lock-timeout, pgqueue.schema.lock-attempts)."
                            + " Find it in pg_locks / pg_stat_activity, or migrate in a quiet moment", ex);
                }
                logger.warn("pgqueue's migration of schema '" + schema + "' waited " + lockTimeout.toMillis()
                        + " ms for a table lock another transaction holds; rolled back, trying again (attempt "
                        + (attempt + 1) + " of " + lockAttempts + ")");
                pause(attempt);
            }
        }
    }

    private void pause(int attempt) {
        try {
            Thread.sleep(Math.min(lockTimeout.toMillis(), 200L * attempt));
        }
        catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting to migrate schema '" + schema + "'");
        }
    }

    /** Whether the failure was a lock wait that ran past lock_timeout (SQLSTATE 55P03), however wrapped. */
    private static boolean lockNotAvailable(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && "55P03".equals(sql.getSQLState())) {
                return true;
            }
            if (cause.getMessage() != null && cause.getMessage().contains("lock timeout")) {
                return true;
            }
        }
        return false;
    }

    private void migrateOnce() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            MigrationSession session = MigrationSession.begin(connection, new Schema(schema), lockTimeout);
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
