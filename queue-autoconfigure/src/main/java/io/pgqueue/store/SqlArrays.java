package io.pgqueue.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * JDBC arrays of primitive values, for statements that take many ids in one parameter.
 */
final class SqlArrays {

    private SqlArrays() {
    }

    static Array bigints(Connection connection, long[] values) throws SQLException {
        Long[] boxed = new Long[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return connection.createArrayOf("int8", boxed);
    }

    static Array ints(Connection connection, int[] values) throws SQLException {
        Integer[] boxed = new Integer[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return connection.createArrayOf("int4", boxed);
    }
}
