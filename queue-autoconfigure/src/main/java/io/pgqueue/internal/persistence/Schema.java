package io.pgqueue.internal.persistence;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;

/**
 * The schema that holds pgqueue's tables. Its name is the only identifier pgqueue puts into SQL text: it is
 * validated here and quoted; every value is a bind parameter.
 */
public final class Schema {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private final String name;

    private final String quoted;

    private final List<Sql> statements = new CopyOnWriteArrayList<>();

    public Schema(String name) {
        this.name = validateIdentifier(name);
        this.quoted = "\"" + name + "\"";
    }

    /**
     * Returns the name unchanged when it is a lower-case, unquoted PostgreSQL identifier of at most 63
     * characters ({@code [a-z_][a-z0-9_]*}); throws otherwise.
     */
    public static String validateIdentifier(String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("Invalid schema name '" + name
                    + "': use 1 to 63 characters from [a-z0-9_], not starting with a digit");
        }
        return name;
    }

    public String name() {
        return name;
    }

    /**
     * The LISTEN/NOTIFY channel of this schema's queues; notifications carry the queue name. A channel is an
     * identifier of at most 63 bytes: for a long schema name it ends with a hash of the name instead.
     */
    public String notifyChannel() {
        String channel = "pgqueue_" + name;
        if (channel.length() <= 63) {
            return channel;
        }
        return channel.substring(0, 54) + "_" + String.format("%08x", name.hashCode());
    }

    /** Replaces every {@code {schema}} of a SQL text by the quoted schema name. */
    String qualify(String sql) {
        return sql.replace("{schema}", quoted).replace("{channel}", "'" + notifyChannel().replace("'", "''") + "'");
    }

    /**
     * Parses a statement after qualifying its table names, and records it: every statement on pgqueue's
     * tables is made here, so that the transition table's test sees all of them, not a list kept by hand.
     */
    Sql sql(String sql) {
        Sql parsed = Sql.parse(qualify(sql));
        statements.add(parsed);
        return parsed;
    }

    /** Every statement made through this schema so far (page statements are made on first use). */
    List<Sql> statements() {
        return List.copyOf(statements);
    }
}
