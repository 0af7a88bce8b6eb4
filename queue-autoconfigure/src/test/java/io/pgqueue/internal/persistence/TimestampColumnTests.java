package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.PGResultSetMetaData;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claimed job's timestamps read as the driver sends them: in binary form (a server-prepared statement's rows)
 * and as text (its first executions, and every one on a connection that never prepares), the same instants
 * either way, whatever the session's time zone, before the Gregorian calendar's start and at infinity.
 */
class TimestampColumnTests {

    private static final TestDatabase database = TestPostgres.createDatabase(TimestampColumnTests.class);

    private static final String VALUES = """
            SELECT t FROM (VALUES ('2026-03-29 01:30:00.123456+00'::timestamptz, 1),
                                  ('2026-11-29 12:00:00.000001+05:30', 2),
                                  ('1900-01-01 00:00:00+00', 3),
                                  ('0500-06-01 12:00:00+00', 4),
                                  ('1999-12-31 23:59:59.999999+00', 5),
                                  ('infinity', 6),
                                  ('-infinity', 7)) AS v(t, n) ORDER BY n
            """;

    private static final List<Instant> EXPECTED = List.of(Instant.parse("2026-03-29T01:30:00.123456Z"),
            Instant.parse("2026-11-29T06:30:00.000001Z"), Instant.parse("1900-01-01T00:00:00Z"),
            Instant.parse("0500-06-01T12:00:00Z"), Instant.parse("1999-12-31T23:59:59.999999Z"),
            OffsetDateTime.MAX.toInstant(), OffsetDateTime.MIN.toInstant());

    @Test
    void aPreparedStatementsBinaryRowsAndItsFirstTextRowsReadTheSame() throws Exception {
        try (Connection connection = connect("prepareThreshold=1")) {
            // the first execution's rows come as text, the later ones in binary form: both were read
            assertThat(formatsReadingExpected(connection, 3)).containsExactly(0, 1);
        }
    }

    @Test
    void aConnectionThatNeverPreparesReadsText() throws Exception {
        try (Connection connection = connect("prepareThreshold=0")) {
            assertThat(formatsReadingExpected(connection, 6)).containsExactly(0);
        }
    }

    @Test
    void theSessionsTimeZoneChangesNothing() throws Exception {
        try (Connection connection = connect("prepareThreshold=1");
                Statement set = connection.createStatement()) {
            set.execute("SET TimeZone = 'America/St_Johns'");
            assertThat(formatsReadingExpected(connection, 3)).containsExactly(0, 1);
        }
    }

    private static Connection connect(String options) throws SQLException {
        String url = database.jdbcUrl() + (database.jdbcUrl().contains("?") ? "&" : "?") + options;
        return DriverManager.getConnection(url, database.username(), database.password());
    }

    /** Runs the statement {@code executions} times, each reading the expected instants; the formats it came in. */
    private static Set<Integer> formatsReadingExpected(Connection connection, int executions) throws SQLException {
        Set<Integer> formats = new LinkedHashSet<>();
        for (int execution = 0; execution < executions; execution++) {
            assertThat(read(connection, formats)).isEqualTo(EXPECTED);
        }
        return formats;
    }

    private static List<Instant> read(Connection connection, Set<Integer> formats) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(VALUES);
                ResultSet rows = statement.executeQuery()) {
            formats.add(rows.getMetaData().unwrap(PGResultSetMetaData.class).getFormat(1));
            TimestampColumn column = TimestampColumn.of(rows, "t");
            List<Instant> read = new ArrayList<>();
            while (rows.next()) {
                read.add(column.read(rows));
            }
            return read;
        }
    }
}
