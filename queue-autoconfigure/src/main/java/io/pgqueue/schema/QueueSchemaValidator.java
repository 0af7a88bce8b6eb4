package io.pgqueue.schema;

import java.util.List;

import io.pgqueue.internal.lifecycle.SchemaRepository;

import org.springframework.beans.factory.InitializingBean;

/**
 * With {@code pgqueue.schema.migrate=false}, checks at startup that the tables exist and fails with the
 * steps to create them when they do not.
 */
public class QueueSchemaValidator implements InitializingBean {

    private final SchemaRepository schemaStore;

    private final String schema;

    public QueueSchemaValidator(SchemaRepository schemaStore, String schema) {
        this.schemaStore = schemaStore;
        this.schema = schema;
    }

    @Override
    public void afterPropertiesSet() {
        List<String> missing = schemaStore.missingTables();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("pgqueue.schema.migrate=false but schema '" + schema
                    + "' lacks the table(s) " + missing + ". Either start once with pgqueue.schema.migrate=true, or "
                    + "apply the migrations shipped in pgqueue-spring-boot-autoconfigure.jar under "
                    + "io/pgqueue/db/migration/ in version order, e.g. psql -c 'CREATE SCHEMA IF NOT EXISTS " + schema
                    + "' and then for each script: PGOPTIONS='-c search_path=" + schema
                    + "' psql -v ON_ERROR_STOP=1 -f V<n>__<name>.sql");
        }
    }
}
