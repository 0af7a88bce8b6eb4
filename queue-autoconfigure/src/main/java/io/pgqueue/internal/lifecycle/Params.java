package io.pgqueue.internal.lifecycle;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.BitSet;
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

    private final BitSet bound = new BitSet();

    Params(Sql sql, Connection connection, PreparedStatement statement) {
        this.sql = sql;
        this.connection = connection;
        this.statement = statement;
    }

    Params text(String name, @Nullable String value) throws SQLException {
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
            statement.setObject(at, value, Types.INTEGER);
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
            statement.setObject(at, value, Types.BIGINT);
        }
        return this;
    }

    Params bool(String name, boolean value) throws SQLException {
        for (int at : positions(name)) {
            statement.setBoolean(at, value);
        }
        return this;
    }

    Params uuid(String name, @Nullable UUID value) throws SQLException {
        for (int at : positions(name)) {
            statement.setObject(at, value);
        }
        return this;
    }

    Params timestamp(String name, @Nullable Instant value) throws SQLException {
        for (int at : positions(name)) {
            statement.setTimestamp(at, (value != null) ? Timestamp.from(value) : null);
        }
        return this;
    }

    Params int8Array(String name, long[] values) throws SQLException {
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
        for (int at : positions(name)) {
            statement.setArray(at, array);
        }
        return this;
    }

    /** Throws naming the statement when a parameter was left unbound. */
    void checkComplete() {
        if (bound.cardinality() != sql.parameterCount()) {
            throw new IllegalStateException("Unbound parameters among " + sql.parameterNames() + " in: " + sql);
        }
    }

    private int[] positions(String name) {
        int[] at = sql.positions(name);
        for (int position : at) {
            bound.set(position - 1);
        }
        return at;
    }
}
