package io.pgqueue.store;

import java.util.regex.Pattern;

/**
 * The qualified names of pgqueue's tables in one validated schema. Schema names are the only identifiers
 * pgqueue puts into SQL text; they are checked here and quoted, every value is a bind parameter.
 */
public final class QueueTables {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    /** A counter-delta CTE in a SQL template, removed when counters are off. */
    private static final Pattern COUNTER_CTE = Pattern.compile("/\\*counters\\*/.*?/\\*end\\*/", Pattern.DOTALL);

    /** A history CTE in a SQL template, removed when history is off. */
    private static final Pattern HISTORY_CTE = Pattern.compile("/\\*history\\*/.*?/\\*end\\*/", Pattern.DOTALL);

    private final String schema;

    private final boolean counters;

    private final boolean history;

    public QueueTables(String schema) {
        this(schema, true, false);
    }

    /**
     * @param schema the schema holding the tables
     * @param counters whether statements maintain the counters; without, they skip their counter deltas
     * @param history whether finished jobs are copied to job_history
     */
    public QueueTables(String schema, boolean counters, boolean history) {
        this.schema = validateSchemaName(schema);
        this.counters = counters;
        this.history = history;
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

    public boolean countersEnabled() {
        return counters;
    }

    public boolean historyEnabled() {
        return history;
    }

    /**
     * Replaces {@code {schema}} in a SQL template by the quoted schema name, and drops the optional CTEs
     * (between the comments counters or history and end) whose feature is off.
     */
    public String sql(String template) {
        String sql = counters ? template : COUNTER_CTE.matcher(template).replaceAll("");
        sql = history ? sql : HISTORY_CTE.matcher(sql).replaceAll("");
        return sql.replace("{schema}", "\"" + schema + "\"");
    }
}
