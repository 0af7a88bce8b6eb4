package io.pgqueue.autoconfigure;

import io.pgqueue.store.QueueTables;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of pgqueue, bound from {@code pgqueue.*}. Invalid values fail startup with an
 * {@link InvalidConfigurationPropertyValueException} naming the property.
 */
@ConfigurationProperties(prefix = "pgqueue")
public class PgQueueProperties implements InitializingBean {

    /**
     * Whether pgqueue is enabled.
     */
    private boolean enabled = true;

    private final Schema schema = new Schema();

    private final Template template = new Template();

    @Override
    public void afterPropertiesSet() {
        validate();
    }

    /** Checks every value and throws naming the first invalid property. */
    public void validate() {
        check("pgqueue.schema.name", schema.getName(), () -> QueueTables.validateSchemaName(schema.getName()));
        check("pgqueue.schema.history-table", schema.getHistoryTable(),
                () -> QueueTables.validateSchemaName(schema.getHistoryTable()));
        atLeast("pgqueue.template.max-payload-size", template.getMaxPayloadSize().toBytes(), 1);
        atLeast("pgqueue.template.batch-chunk-size", template.getBatchChunkSize(), 1);
    }

    static void check(String property, Object value, Runnable validation) {
        try {
            validation.run();
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(property, value, ex.getMessage());
        }
    }

    static void atLeast(String property, long value, long minimum) {
        if (value < minimum) {
            throw new InvalidConfigurationPropertyValueException(property, value, "must be at least " + minimum);
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Schema getSchema() {
        return schema;
    }

    public Template getTemplate() {
        return template;
    }

    /** Where the queue tables live and whether pgqueue creates them. */
    public static class Schema {

        /**
         * PostgreSQL schema holding the queue tables: a lower-case identifier of 1 to 63 characters from
         * [a-z0-9_].
         */
        private String name = "pgqueue";

        /**
         * Whether to apply pgqueue's bundled migrations at startup with a private Flyway. When false, startup
         * checks that the tables exist and fails with instructions otherwise.
         */
        private boolean migrate = true;

        /**
         * Name of pgqueue's own Flyway history table, created in the queue schema.
         */
        private String historyTable = "pgqueue_schema_history";

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public boolean isMigrate() {
            return migrate;
        }

        public void setMigrate(boolean migrate) {
            this.migrate = migrate;
        }

        public String getHistoryTable() {
            return historyTable;
        }

        public void setHistoryTable(String historyTable) {
            this.historyTable = historyTable;
        }
    }

    /** Publishing with QueueTemplate. */
    public static class Template {

        /**
         * Largest payload accepted by send, measured as UTF-8 JSON. Larger payloads are rejected with their
         * size.
         */
        private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

        /**
         * Most jobs inserted by one statement of sendBatch; larger batches use several statements.
         */
        private int batchChunkSize = 10_000;

        public DataSize getMaxPayloadSize() {
            return maxPayloadSize;
        }

        public void setMaxPayloadSize(DataSize maxPayloadSize) {
            this.maxPayloadSize = maxPayloadSize;
        }

        public int getBatchChunkSize() {
            return batchChunkSize;
        }

        public void setBatchChunkSize(int batchChunkSize) {
            this.batchChunkSize = batchChunkSize;
        }
    }
}
