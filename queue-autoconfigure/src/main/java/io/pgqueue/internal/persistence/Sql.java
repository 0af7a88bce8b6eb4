package io.pgqueue.internal.persistence;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One SQL statement with named parameters ({@code :name}), parsed once at startup into JDBC's positional
 * form. A parameter may appear several times; {@link Params} binds it at each place, so composing a
 * statement from fragments can never shift a parameter's index. PostgreSQL casts ({@code ::type}), string
 * literals, quoted identifiers and comments are left alone.
 */
final class Sql {

    private final String jdbcSql;

    private final Map<String, int[]> positions;

    private final int parameterCount;

    private final boolean plannedPerExecution;

    private Sql(String jdbcSql, Map<String, int[]> positions, int parameterCount, boolean plannedPerExecution) {
        this.jdbcSql = jdbcSql;
        this.positions = positions;
        this.parameterCount = parameterCount;
        this.plannedPerExecution = plannedPerExecution;
    }

    /**
     * The same statement, planned by the server for each execution's values instead of once for all (it is
     * never prepared on the server): for reads whose best index depends on the values, where a generic plan
     * can cost a scan of the table.
     */
    Sql plannedPerExecution() {
        return new Sql(jdbcSql, positions, parameterCount, true);
    }

    /** The plan of this statement, with the same parameters: {@code EXPLAIN} and the statement. */
    Sql explained() {
        return new Sql("EXPLAIN " + jdbcSql, positions, parameterCount, plannedPerExecution);
    }

    boolean isPlannedPerExecution() {
        return plannedPerExecution;
    }

    /** Parses a statement whose {@code {schema}} placeholders were already replaced. */
    static Sql parse(String sql) {
        StringBuilder jdbc = new StringBuilder(sql.length());
        Map<String, List<Integer>> found = new LinkedHashMap<>();
        int index = 0;
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                end = (end < 0) ? sql.length() : end + 1;
                jdbc.append(sql, i, end);
                i = end;
            }
            else if (c == '-' && sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                end = (end < 0) ? sql.length() : end;
                jdbc.append(sql, i, end);
                i = end;
            }
            else if (c == '/' && sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                end = (end < 0) ? sql.length() : end + 2;
                jdbc.append(sql, i, end);
                i = end;
            }
            else if (c == ':' && i + 1 < sql.length() && sql.charAt(i + 1) == ':') {
                jdbc.append("::");
                i += 2;
            }
            else if (c == ':' && i + 1 < sql.length() && Character.isJavaIdentifierStart(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < sql.length() && Character.isJavaIdentifierPart(sql.charAt(end))) {
                    end++;
                }
                // interned: binders name parameters with literals, so each look-up matches by reference
                found.computeIfAbsent(sql.substring(i + 1, end).intern(), (name) -> new ArrayList<>()).add(++index);
                jdbc.append('?');
                i = end;
            }
            else if (c == '?') {
                throw new IllegalArgumentException("Positional parameter in a named statement: " + sql);
            }
            else {
                jdbc.append(c);
                i++;
            }
        }
        Map<String, int[]> positions = new LinkedHashMap<>();
        found.forEach((name, at) -> positions.put(name, at.stream().mapToInt(Integer::intValue).toArray()));
        return new Sql(jdbc.toString(), Collections.unmodifiableMap(positions), index, false);
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
