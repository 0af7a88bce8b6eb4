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

    /** A statement's name: its family, a dot, then words with dashes (a size or variant after a colon). */
    private static final Pattern NAME = Pattern.compile("[a-z]+(-[a-z]+)*\\.[a-z0-9]+([-:+][a-z0-9]+)*");

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

    /** A table (or function) of pgqueue's schema, qualified: {@code "pgqueue".job}. */
    String table(String table) {
        return quoted + "." + table;
    }

    /**
     * Parses a statement, its table names qualified by the schema's (each {@code {schema}}), and records it: every statement on pgqueue's
     * tables is made here, so that the transition table's test and the statement catalogue see all of them, not
     * a list kept by hand. The statement starts with its name as a comment ({@code /* pgqueue:job.complete *}{@code /}),
     * which server logs, {@code pg_stat_activity} and {@code pg_stat_statements} show: a slow statement is
     * found by name in the catalogue (src/main/resources/io/pgqueue/sql).
     *
     * @param name the statement's name in the catalogue: its family (the file), a dot, then its name there
     * @param texts the statement, or several sent in one round trip, in order
     */
    Sql sql(String name, String... texts) {
        Sql parsed = ddl(name, texts);
        statements.add(parsed);
        return parsed;
    }

    /**
     * A statement whose text carries values computed at run time (DDL takes no parameters: a partition's name and
     * bounds, an id block's bounds): named, but not recorded, since each is made anew; the catalogue shows one of
     * each with example values.
     */
    Sql ddl(String name, String... texts) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("Invalid statement name '" + name + "'");
        }
        return Sql.named(name, List.of(texts), quoted);
    }

    /** Every statement made through this schema so far (page statements are made on first use). */
    List<Sql> statements() {
        return List.copyOf(statements);
    }
}
