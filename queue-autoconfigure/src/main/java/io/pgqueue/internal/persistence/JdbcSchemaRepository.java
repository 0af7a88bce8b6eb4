package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The JDBC {@link SchemaRepository}.
 */
final class JdbcSchemaRepository implements SchemaRepository {

    private final Jdbc jdbc;

    private final Schema schema;

    private final Sql missingTables;

    private final Sql historyTableExists;

    private final Sql version;

    private final String qualifiedHistoryTable;

    private final Sql versionFunctionExists;

    private final Sql statedVersion;

    private final Sql compatibleFrom;

    private final Sql identityBounds;

    JdbcSchemaRepository(Jdbc jdbc, Schema schema, String historyTable) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.missingTables = schema.sql("schema.missing-tables", """
                SELECT t FROM unnest(:tables::text[]) AS t
                WHERE t NOT IN (SELECT table_name FROM information_schema.tables WHERE table_schema = :schema)
                ORDER BY array_position(:tables::text[], t)
                """);
        String qualified = schema.table("\"" + Schema.validateIdentifier(historyTable) + "\"");
        this.historyTableExists = schema.sql("schema.history-table-exists", "SELECT count(*) FROM (SELECT to_regclass(:table) AS t) AS r WHERE t IS NOT NULL");
        this.version = schema.sql("schema.migrated-version", "SELECT version FROM " + qualified
                + " WHERE success AND version IS NOT NULL ORDER BY installed_rank DESC LIMIT 1");
        this.qualifiedHistoryTable = qualified;
        this.versionFunctionExists = schema.sql("schema.version-function-exists", 
                "SELECT count(*) FROM (SELECT to_regprocedure(:function) AS f) AS r WHERE f IS NOT NULL");
        this.statedVersion = schema.sql("schema.stated-version", "SELECT {schema}.schema_version()");
        this.compatibleFrom = schema.sql("schema.compatible-from", "SELECT {schema}.schema_compatible_from()");
        this.identityBounds = schema.sql("schema.identity-bounds", """
                SELECT s.seqmin, s.seqmax FROM pg_sequence AS s
                WHERE s.seqrelid = pg_get_serial_sequence(:table, 'id')::regclass
                """);
    }

    @Override
    public List<String> missingTables() {
        return jdbc.query(missingTables,
                (params) -> params.array("tables", "text", TABLES.toArray()).text("schema", schema.name()),
                (row) -> row.getString(1));
    }

    @Override
    public @Nullable Integer statedVersion() {
        return statedBy("schema_version()", statedVersion);
    }

    @Override
    public @Nullable Integer compatibleFrom() {
        return statedBy("schema_compatible_from()", compatibleFrom);
    }

    /** What a function of the schema returns, or null when the schema has no such function. */
    private @Nullable Integer statedBy(String function, Sql call) {
        if (jdbc.count(versionFunctionExists, (params) -> params.text("function", schema.table(function))) == 0) {
            return null;
        }
        return (int) jdbc.count(call, Jdbc.Binder.NONE);
    }

    @Override
    public void useIdBlock(long first, long last, Duration lockTimeout) {
        if (alreadyInBlock(first, last)) {
            return;
        }
        // nodes starting at once on a fresh database: one at a time under the migration's lock, each reading the
        // bounds again under it, so that no node restarts a sequence another one has already handed ids out from
        jdbc.execute((connection) -> {
            MigrationSession session = MigrationSession.begin(connection, schema, lockTimeout);
            try {
                for (String table : IDENTITY_TABLES) {
                    useIdBlock(connection, table, first, last);
                }
                session.commit();
            }
            catch (SQLException | RuntimeException ex) {
                session.rollback();
                throw ex;
            }
            return Boolean.TRUE;
        });
    }

    /** Whether every identity table already draws from the block: the usual start, without a lock. */
    private boolean alreadyInBlock(long first, long last) {
        return jdbc.execute((Connection connection) -> {
            for (String table : IDENTITY_TABLES) {
                if (!inBlock(bounds(connection, table), first, last)) {
                    return false;
                }
            }
            return true;
        });
    }

    /** The identity column's bounds of a table (minimum and maximum value), or none if it has no such column. */
    private long[] bounds(Connection connection, String table) throws SQLException {
        return jdbc.run(connection, identityBounds, (params) -> params.text("table", schema.table(table)),
                (statement) -> {
                    try (ResultSet row = statement.executeQuery()) {
                        return row.next() ? new long[] { row.getLong(1), row.getLong(2) } : new long[0];
                    }
                });
    }

    private static boolean inBlock(long[] bounds, long first, long last) {
        return bounds.length == 2 && bounds[0] == first && bounds[1] == last;
    }

    private void useIdBlock(Connection connection, String table, long first, long last) throws SQLException {
        if (inBlock(bounds(connection, table), first, last)) {
            return;
        }
        // DDL takes no parameters: the bounds are numbers computed here, the table a validated identifier. Both
        // questions are probes of the primary key, never a scan of a table that may hold millions of jobs
        long[] ids = jdbc.run(connection, schema.ddl("schema.id-block-bounds", idBlockBoundsStatement(table, first, last)),
                Jdbc.Binder.NONE, (statement) -> {
                    try (ResultSet row = statement.executeQuery()) {
                        row.next();
                        return new long[] { row.getLong(1), row.getLong(2) };
                    }
                });
        if (ids[0] > 0) {
            String qualified = schema.table(table);
            throw new IllegalStateException("Table " + qualified + " holds ids outside this database's id block "
                    + first + ".." + last + "; it was used before with another id block or none");
        }
        // an empty block starts at its first id; one that holds rows goes on after them, never hands an id twice
        long next = (ids[1] == 0) ? first : ids[1] + 1;
        jdbc.run(connection, schema.ddl("schema.id-block-restart", idBlockRestartStatement(table, first, last, next)),
                Jdbc.Binder.NONE,
                PreparedStatement::executeUpdate);
    }

    @Override
    public @Nullable String version() {
        if (jdbc.count(historyTableExists, (params) -> params.text("table", qualifiedHistoryTable)) == 0) {
            return null;
        }
        List<String> versions = jdbc.query(version, Jdbc.Binder.NONE, (row) -> row.getString(1));
        return versions.isEmpty() ? null : versions.get(0);
    }

    /** Whether a table holds ids outside the block, and the highest id inside it (the block's bounds are numbers). */
    static String idBlockBoundsStatement(String table, long first, long last) {
        return """
                SELECT (EXISTS (SELECT 1 FROM {schema}.%1$s WHERE id < %2$d)
                        OR EXISTS (SELECT 1 FROM {schema}.%1$s WHERE id > %3$d))::int,
                       coalesce((SELECT max(id) FROM {schema}.%1$s WHERE id BETWEEN %2$d AND %3$d), 0)""".formatted(table,
                first, last);
    }

    /** Confines a table's id sequence to the block, going on at {@code next}. */
    static String idBlockRestartStatement(String table, long first, long last, long next) {
        return "ALTER TABLE {schema}.%s ALTER COLUMN id SET MINVALUE %d SET MAXVALUE %d SET START WITH %d RESTART WITH %d"
            .formatted(table, first, last, first, next);
    }
}
