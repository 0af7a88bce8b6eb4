package io.pgqueue.store;

import java.util.regex.Pattern;

/**
 * The qualified names of pgqueue's tables in one validated schema. Schema names are the only identifiers
 * pgqueue puts into SQL text; they are checked here and quoted, every value is a bind parameter.
 */
public final class QueueTables {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private final String schema;

    public QueueTables(String schema) {
        this.schema = validateSchemaName(schema);
    }

    /**
     * Returns the name unchanged when it is a lower-case, unquoted PostgreSQL identifier of at most 63
     * characters ({@code [a-z_][a-z0-9_]*}); throws otherwise.
     */
    public static String validateSchemaName(String schema) {
        if (schema == null || !IDENTIFIER.matcher(schema).matches()) {
            throw new IllegalArgumentException("Invalid schema name '" + schema
                    + "': use 1 to 63 characters from [a-z0-9_], not starting with a digit");
        }
        return schema;
    }

    public String schema() {
        return schema;
    }

    /** The LISTEN/NOTIFY channel of this schema's queues; notifications carry the queue name. */
    public String notifyChannel() {
        return "pgqueue_" + schema;
    }

    /** Replaces {@code {schema}} in a SQL template by the quoted schema name. */
    public String sql(String template) {
        return template.replace("{schema}", "\"" + schema + "\"");
    }
}
