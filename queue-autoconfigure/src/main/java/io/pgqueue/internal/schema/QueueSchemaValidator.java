package io.pgqueue.internal.schema;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import io.pgqueue.internal.persistence.SchemaRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * With {@code pgqueue.schema.migrate=false}, checks at startup that the schema is the one this pgqueue
 * needs: its tables exist and its version is neither older (pgqueue would fail at run time) nor newer (an
 * old pgqueue on a schema migrated by a newer one). Fails with the steps to take otherwise.
 */
public class QueueSchemaValidator implements InitializingBean {

    private static final Log logger = LogFactory.getLog(QueueSchemaValidator.class);

    /** The first version that states itself: a schema without {@code schema_version()} is older. */
    private static final int FIRST_STATED_VERSION = 5;

    private static final Pattern MIGRATION = Pattern.compile("V(\\d+)__.+\\.sql");

    private final SchemaRepository schemaStore;

    private final String schema;

    private final int expectedVersion;

    public QueueSchemaValidator(SchemaRepository schemaStore, String schema) {
        this(schemaStore, schema, bundledVersion());
    }

    QueueSchemaValidator(SchemaRepository schemaStore, String schema, int expectedVersion) {
        this.schemaStore = schemaStore;
        this.schema = schema;
        this.expectedVersion = expectedVersion;
    }

    /** The highest migration version shipped with this pgqueue. */
    static int bundledVersion() {
        try {
            Resource[] migrations = new PathMatchingResourcePatternResolver(QueueSchemaValidator.class.getClassLoader())
                .getResources(QueueSchemaInitializer.LOCATION + "/V*__*.sql");
            return Arrays.stream(migrations)
                .map(Resource::getFilename)
                .map((name) -> (name != null) ? MIGRATION.matcher(name) : null)
                .filter((matcher) -> matcher != null && matcher.matches())
                .mapToInt((matcher) -> Integer.parseInt(matcher.group(1)))
                .max()
                .orElseThrow(() -> new IllegalStateException("pgqueue's migrations are missing from the classpath"));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void afterPropertiesSet() {
        List<String> missing = schemaStore.missingTables();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("pgqueue.schema.migrate=false but schema '" + schema
                    + "' lacks the table(s) " + missing + ". Either start once with pgqueue.schema.migrate=true, or "
                    + apply(1));
        }
        Integer stated = schemaStore.statedVersion();
        if (stated == null || stated < expectedVersion) {
            int from = (stated != null) ? stated + 1 : FIRST_STATED_VERSION;
            throw new IllegalStateException("pgqueue.schema.migrate=false but schema '" + schema + "' is at version "
                    + ((stated != null) ? stated : (FIRST_STATED_VERSION - 1) + " or older") + ", and this pgqueue needs version " + expectedVersion
                    + ". Either start once with pgqueue.schema.migrate=true, or " + apply(from));
        }
        if (stated > expectedVersion) {
            Integer compatibleFrom = schemaStore.compatibleFrom();
            if (compatibleFrom != null && compatibleFrom <= expectedVersion) {
                // a rolling upgrade: a newer node migrated the schema, and says this node's code still runs on it
                logger.warn("pgqueue schema '" + schema + "' is at version " + stated + ", newer than this pgqueue ("
                        + expectedVersion + "), and compatible with it: upgrade this application to the version that "
                        + "migrated the schema when you can");
                return;
            }
            throw new IllegalStateException("pgqueue.schema.migrate=false and schema '" + schema + "' is at version "
                    + stated + ", newer than this pgqueue knows (version " + expectedVersion
                    + "): upgrade pgqueue in this application to the version that migrated the schema");
        }
    }

    private String apply(int fromVersion) {
        return "apply the migrations shipped in pgqueue-spring-boot-autoconfigure.jar under "
                + "io/pgqueue/db/migration/ from V" + fromVersion + " on, in version order, e.g. psql -c "
                + "'CREATE SCHEMA IF NOT EXISTS " + schema + "' and then for each script: PGOPTIONS='-c search_path="
                + schema + "' psql -v ON_ERROR_STOP=1 -f V<n>__<name>.sql";
    }

    @Override
    public String toString() {
        return "QueueSchemaValidator[" + schema + ", version " + expectedVersion + "]";
    }
}
