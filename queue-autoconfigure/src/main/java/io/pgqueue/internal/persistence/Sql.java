package io.pgqueue.internal.persistence;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One SQL statement with named parameters ({@code :name}), parsed once at startup into JDBC's positional
 * form. A parameter may appear several times; {@link Params} binds it at each place, so composing a
 * statement from fragments can never shift a parameter's index. PostgreSQL casts ({@code ::type}), string
 * literals, quoted identifiers and comments are left alone.
 */
final class Sql {

    /** Where a statement names pgqueue's schema, before a table's name: {@code {schema}.job}. */
    static final String SCHEMA = "{schema}";

    private final String jdbcSql;

    private final Map<String, int[]> positions;

    private final int parameterCount;

    private final boolean plannedPerExecution;

    /**
     * Whether the statement returns the queues whose jobs it made ready beside its own rows ({@code wf_woken},
     * {@code b_woken}), or made due at once ({@code due_woken}: jobs an event was emitted for), which the caller
     * wakes.
     */
    private final boolean wakes;

    /** See {@link #leavesDependencyCounts()}: read per result row, so decided once, as {@link #wakes}. */
    private final boolean leavesDependencyCounts;

    /** The statement's name in the catalogue; null only while {@link #parse} makes it, before it is named. */
    private final @Nullable String name;

    /** The statement as composed, with its named parameters (what the catalogue shows). */
    private final String text;

    private Sql(String jdbcSql, Map<String, int[]> positions, int parameterCount, boolean plannedPerExecution,
            @Nullable String name, String text) {
        this.jdbcSql = jdbcSql;
        this.positions = positions;
        this.parameterCount = parameterCount;
        this.plannedPerExecution = plannedPerExecution;
        this.name = name;
        this.text = text;
        this.wakes = jdbcSql.contains(" AS wf_woken") || jdbcSql.contains(" AS b_woken")
                || jdbcSql.contains(" AS due_woken");
        this.leavesDependencyCounts = jdbcSql.contains(" AS wf_deposits");
    }

    boolean wakes() {
        return wakes;
    }

    /**
     * Whether the statement returns the counts of satisfied edges it left for children it could not lock
     * ({@code wf_deposits}, ids of {@code job_dependency_done}), which are folded once it committed.
     */
    boolean leavesDependencyCounts() {
        return leavesDependencyCounts;
    }

    /**
     * Parses a statement that starts with its name as a comment, which server logs, {@code pg_stat_activity} and
     * {@code pg_stat_statements} show.
     */
    static Sql named(String name, String sql) {
        return named(name, List.of(sql), null);
    }

    /**
     * Parses statements sent in one round trip, each starting with the name (the second and later ones with
     * their place, {@code /* pgqueue:claim.lease #2 *}{@code /}): pgjdbc sends them as separate statements, and each
     * is seen on its own in {@code pg_stat_statements}.
     */
    static Sql named(String name, List<String> parts, @Nullable String quotedSchema) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            text.append((i == 0) ? "" : ";\n").append("/* pgqueue:").append(name).append((i == 0) ? "" : " #" + (i + 1))
                .append(" */\n").append(parts.get(i));
        }
        return parse(text.toString(), quotedSchema).named(name);
    }

    /** This statement under its name in the catalogue. */
    private Sql named(String name) {
        return new Sql(jdbcSql, positions, parameterCount, plannedPerExecution, name, text);
    }

    @Nullable String name() {
        return name;
    }

    /** The statement as composed, with its named parameters. */
    String text() {
        return text;
    }

    /**
     * The same statement, planned by the server for each execution's values instead of once for all (it is
     * never prepared on the server): for reads whose best index depends on the values, where a generic plan
     * can cost a scan of the table.
     */
    Sql plannedPerExecution() {
        return new Sql(jdbcSql, positions, parameterCount, true, name, text);
    }

    /** The plan of this statement, with the same parameters: {@code EXPLAIN} and the statement. */
    Sql explained() {
        return new Sql("EXPLAIN " + jdbcSql, positions, parameterCount, plannedPerExecution, name, "EXPLAIN " + text);
    }

    boolean isPlannedPerExecution() {
        return plannedPerExecution;
    }

    /**
     * Whether the statement is prepared on the server at its first execution on a connection rather than its
     * fifth (pgjdbc's default {@code prepareThreshold}): pgqueue's claims ({@code claim.*}), which run once per
     * batch of jobs, a statement for each claim size, and whose rows are read field by field. A statement
     * prepared on the server returns its rows in binary form from its second execution, which are cheaper to
     * read than text (a timestamp most of all), and is not parsed and planned anew each time. A connection that
     * never prepares ({@code prepareThreshold=0}, for a transaction pooler) is left so.
     */
    boolean isPreparedAtOnce() {
        return name != null && name.startsWith("claim.");
    }

    /** Parses a statement that names no table of pgqueue's schema. */
    static Sql parse(String sql) {
        return parse(sql, null);
    }

    /**
     * Parses a statement in one pass: each named parameter ({@code :queue}) becomes JDBC's {@code ?} at its
     * places, and each {@code {schema}} (before a table's name, also inside a literal such as
     * {@code '{schema}.job'}) the quoted name of pgqueue's schema; quoted identifiers, comments and casts are
     * left as they are. The text keeps the named parameters, with the schema's name: what the catalogue shows.
     *
     * @param quotedSchema the schema's name, quoted; null for a statement that must not name it
     */
    static Sql parse(String sql, @Nullable String quotedSchema) {
        Written out = new Written(sql.length());
        Map<String, List<Integer>> found = new LinkedHashMap<>();
        int index = 0;
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (sql.startsWith(SCHEMA, i)) {
                if (quotedSchema == null) {
                    throw new IllegalArgumentException("A statement that names pgqueue's schema must be made by Schema: "
                            + sql);
                }
                out.both(quotedSchema);
                i += SCHEMA.length();
            }
            else if (c == '\'') {
                // a literal: copied as it is, but for the schema's name ('{schema}.job'), up to its closing quote
                out.both(c);
                i++;
                while (i < sql.length() && sql.charAt(i) != '\'') {
                    boolean schema = quotedSchema != null && sql.startsWith(SCHEMA, i);
                    out.both(schema ? quotedSchema : String.valueOf(sql.charAt(i)));
                    i += schema ? SCHEMA.length() : 1;
                }
                if (i < sql.length()) {
                    out.both('\'');
                    i++;
                }
            }
            else if (c == '"') {
                int end = sql.indexOf(c, i + 1);
                end = (end < 0) ? sql.length() : end + 1;
                out.both(sql.substring(i, end));
                i = end;
            }
            else if (c == '-' && sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                end = (end < 0) ? sql.length() : end;
                out.both(sql.substring(i, end));
                i = end;
            }
            else if (c == '/' && sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                end = (end < 0) ? sql.length() : end + 2;
                out.both(sql.substring(i, end));
                i = end;
            }
            else if (c == ':' && i + 1 < sql.length() && sql.charAt(i + 1) == ':') {
                out.both("::");
                i += 2;
            }
            else if (c == ':' && i + 1 < sql.length() && Character.isJavaIdentifierStart(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < sql.length() && Character.isJavaIdentifierPart(sql.charAt(end))) {
                    end++;
                }
                // interned: binders name parameters with literals, so each look-up matches by reference
                found.computeIfAbsent(sql.substring(i + 1, end).intern(), (name) -> new ArrayList<>()).add(++index);
                out.jdbc.append('?');
                out.text.append(sql, i, end);
                i = end;
            }
            else if (c == '?') {
                throw new IllegalArgumentException("Positional parameter in a named statement: " + sql);
            }
            else {
                out.both(c);
                i++;
            }
        }
        Map<String, int[]> positions = new LinkedHashMap<>();
        found.forEach((name, at) -> positions.put(name, at.stream().mapToInt(Integer::intValue).toArray()));
        return new Sql(out.jdbc.toString(), Collections.unmodifiableMap(positions), index, false, null,
                out.text.toString());
    }

    /** What a parse writes: JDBC's text, with {@code ?}, and the catalogue's, with the parameters' names. */
    private static final class Written {

        final StringBuilder jdbc;

        final StringBuilder text;

        Written(int length) {
            this.jdbc = new StringBuilder(length);
            this.text = new StringBuilder(length);
        }

        void both(CharSequence part) {
            jdbc.append(part);
            text.append(part);
        }

        void both(char c) {
            jdbc.append(c);
            text.append(c);
        }
    }

    String jdbcSql() {
        return jdbcSql;
    }

    /** The JDBC positions of a parameter. */
    int[] positions(String name) {
        int[] at = positions.get(name);
        if (at == null) {
            throw new IllegalArgumentException("Statement has no parameter :" + name + ": " + jdbcSql);
        }
        return at;
    }

    java.util.Set<String> parameterNames() {
        return positions.keySet();
    }

    int parameterCount() {
        return parameterCount;
    }

    @Override
    public String toString() {
        return jdbcSql;
    }
}
