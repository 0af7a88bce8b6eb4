package io.pgqueue.internal.persistence;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * Binds a {@link Sql} statement's parameters by name, each at every place it occurs. Every parameter must be
 * bound before the statement runs ({@link #checkComplete()}).
 */
final class Params {

    private final Sql sql;

    private final Connection connection;

    private final PreparedStatement statement;

    /** The positions bound so far, a bit each: checked at the end, instead of a BitSet allocated per statement. */
    private final long[] bound;

    Params(Sql sql, Connection connection, PreparedStatement statement) {
        this.sql = sql;
        this.connection = connection;
        this.statement = statement;
        this.bound = new long[(sql.parameterCount() + 63) >>> 6];
    }

    Params text(String name, @Nullable String value) throws SQLException {
        // a loop per type, not a lambda per call: these run for every parameter of every send
        for (int at : positions(name)) {
            statement.setString(at, value);
        }
        return this;
    }

    Params int4(String name, int value) throws SQLException {
        for (int at : positions(name)) {
            statement.setInt(at, value);
        }
        return this;
    }

    Params int4(String name, @Nullable Integer value) throws SQLException {
        for (int at : positions(name)) {
            if (value != null) {
                statement.setInt(at, value);
            }
            else {
                statement.setNull(at, Types.INTEGER);
            }
        }
        return this;
    }

    Params int2(String name, short value) throws SQLException {
        for (int at : positions(name)) {
            statement.setShort(at, value);
        }
        return this;
    }

    Params int8(String name, long value) throws SQLException {
        for (int at : positions(name)) {
            statement.setLong(at, value);
        }
        return this;
    }

    Params int8(String name, @Nullable Long value) throws SQLException {
        for (int at : positions(name)) {
            if (value != null) {
                statement.setLong(at, value);
            }
            else {
                statement.setNull(at, Types.BIGINT);
            }
        }
        return this;
    }

    Params float8(String name, double value) throws SQLException {
        return set(name, (at) -> statement.setDouble(at, value));
    }

    Params bool(String name, boolean value) throws SQLException {
        return set(name, (at) -> statement.setBoolean(at, value));
    }

    Params uuid(String name, @Nullable UUID value) throws SQLException {
        return set(name, (at) -> statement.setObject(at, value));
    }

    Params timestamp(String name, @Nullable Instant value) throws SQLException {
        Timestamp timestamp = (value != null) ? Timestamp.from(value) : null;
        return set(name, (at) -> statement.setTimestamp(at, timestamp));
    }

    /** Binds the ids as an int8 array, or SQL NULL when there are none to bind (e.g. "every row"). */
    Params int8Array(String name, long @Nullable [] values) throws SQLException {
        if (values == null) {
            return set(name, (at) -> statement.setNull(at, java.sql.Types.ARRAY));
        }
        Long[] boxed = new Long[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return array(name, "int8", boxed);
    }

    Params int4Array(String name, int[] values) throws SQLException {
        Integer[] boxed = new Integer[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return array(name, "int4", boxed);
    }

    /** An array parameter of the given PostgreSQL element type ({@code text}, {@code int8}, ...). */
    Params array(String name, String elementType, @Nullable Object[] values) throws SQLException {
        Array array = connection.createArrayOf(elementType, values);
        return set(name, (at) -> statement.setArray(at, array));
    }

    /** Whether the statement has the named parameter (for those only some variants of a statement have). */
    boolean expects(String name) {
        return sql.parameterNames().contains(name);
    }

    /** Throws naming the statement when a parameter was left unbound. */
    void checkComplete() {
        int count = 0;
        for (long word : bound) {
            count += Long.bitCount(word);
        }
        if (count != sql.parameterCount()) {
            throw new IllegalStateException("Unbound parameters among " + sql.parameterNames() + " in: " + sql);
        }
    }

    /** Sets the parameter at each of its positions. */
    private Params set(String name, PositionSetter setter) throws SQLException {
        for (int at : positions(name)) {
            setter.set(at);
        }
        return this;
    }

    /** The parameter's positions, marked bound. */
    private int[] positions(String name) {
        int[] positions = sql.positions(name);
        for (int at : positions) {
            bound[(at - 1) >>> 6] |= 1L << (at - 1);
        }
        return positions;
    }

    @FunctionalInterface
    private interface PositionSetter {

        void set(int position) throws SQLException;
    }

    /** One column of the rows, as the array a statement binds (for rows expanded by unnest). */
    static <T> @Nullable Object[] column(java.util.List<T> rows, java.util.function.Function<T, @Nullable Object> column) {
        Object[] values = new Object[rows.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = column.apply(rows.get(i));
        }
        return values;
    }
}
