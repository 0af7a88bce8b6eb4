package io.pgqueue.internal.persistence;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * Reads a {@code timestamptz} column of every row of one result as an {@link Instant}, the cheapest way its
 * format allows. pgjdbc sends a server-prepared statement's timestamps in binary form: eight bytes, microseconds
 * since 2000-01-01 UTC, decoded here in a few instructions; its own decoding into an {@link OffsetDateTime} took
 * about a third of a LEASE poller's CPU samples (claims of 100 rows, three timestamps each, profiled), and
 * {@code getTimestamp} is cheaper but goes through the Julian calendar before 1582. A statement's first
 * executions (and every one on a connection that never prepares, {@code prepareThreshold=0}) come as text,
 * which pgjdbc parses.
 */
final class TimestampColumn {

    /** Microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01 (UTC). */
    private static final long POSTGRES_EPOCH_MICROS = 946_684_800_000_000L;

    /** What pgjdbc reads {@code infinity} and {@code -infinity} as. */
    private static final Instant INFINITY = OffsetDateTime.MAX.toInstant();

    private static final Instant MINUS_INFINITY = OffsetDateTime.MIN.toInstant();

    private final int column;

    private final boolean binary;

    private TimestampColumn(int column, boolean binary) {
        this.column = column;
        this.binary = binary;
    }

    /** The column of this label in the result (whose format is the same in every row). */
    static TimestampColumn of(ResultSet rows, String label) throws SQLException {
        int column = rows.findColumn(label);
        return new TimestampColumn(column, Jdbc.PgStatements.binaryFormat(rows, column));
    }

    /** The current row's value (never null in the columns read this way). */
    Instant read(ResultSet rows) throws SQLException {
        if (binary) {
            byte[] value = rows.getBytes(column);
            if (value != null && value.length == Long.BYTES) {
                return decode(value);
            }
        }
        return rows.getObject(column, OffsetDateTime.class).toInstant();
    }

    /** A binary {@code timestamptz}: a big-endian count of microseconds since 2000-01-01 UTC. */
    static Instant decode(byte[] value) {
        long micros = 0;
        for (byte part : value) {
            micros = (micros << 8) | (part & 0xff);
        }
        if (micros == Long.MAX_VALUE) {
            return INFINITY;
        }
        if (micros == Long.MIN_VALUE) {
            return MINUS_INFINITY;
        }
        long sinceEpoch = micros + POSTGRES_EPOCH_MICROS;
        return Instant.ofEpochSecond(Math.floorDiv(sinceEpoch, 1_000_000L), Math.floorMod(sinceEpoch, 1_000_000L) * 1_000L);
    }
}
