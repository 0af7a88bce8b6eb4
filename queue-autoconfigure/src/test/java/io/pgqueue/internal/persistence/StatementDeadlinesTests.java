package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * pgqueue's statement timeout, enforced by one checking thread instead of a driver timer task per statement: a
 * statement that runs past its deadline is cancelled on the server, one that finished in time is never touched,
 * and a late check cannot cancel what the connection runs next.
 */
class StatementDeadlinesTests {

    private static final TestDatabase database = TestPostgres.createDatabase(StatementDeadlinesTests.class);

    /** Checks far more often than the shared instance, so that each test waits little. */
    private final StatementDeadlines deadlines = new StatementDeadlines(Duration.ofMillis(50).toNanos());

    @Test
    void aStatementRunningPastItsTimeoutIsCancelledOnTheServer() throws Exception {
        try (Connection connection = database.connect();
                PreparedStatement sleep = connection.prepareStatement("SELECT pg_sleep(30)")) {
            Instant start = Instant.now();
            assertThatExceptionOfType(SQLException.class)
                .isThrownBy(() -> deadlines.run(sleep, 1, sleep::execute))
                .satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("57014"));
            assertThat(Duration.between(start, Instant.now())).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(5));
            assertThat(selectOne(connection)).isEqualTo(1);
        }
    }

    @Test
    void aStatementThatFinishedInTimeIsNotCancelledAfterwards() throws Exception {
        try (Connection connection = database.connect()) {
            try (PreparedStatement quick = connection.prepareStatement("SELECT 1")) {
                boolean executed = deadlines.run(quick, 1, quick::execute);
                assertThat(executed).isTrue();
            }
            try (PreparedStatement sleep = connection.prepareStatement("SELECT pg_sleep(0.5)")) {
                // a check long past the first statement's deadline, while the connection runs the next one
                CompletableFuture<Void> lateCheck = CompletableFuture.runAsync(
                        () -> deadlines.cancelOverdue(System.nanoTime() + Duration.ofMinutes(5).toNanos()),
                        CompletableFuture.delayedExecutor(150, TimeUnit.MILLISECONDS));
                sleep.execute();
                lateCheck.join();
            }
            assertThat(selectOne(connection)).isEqualTo(1);
        }
    }

    @Test
    void aZeroTimeoutNeverCancels() throws Exception {
        try (Connection connection = database.connect();
                PreparedStatement sleep = connection.prepareStatement("SELECT pg_sleep(1.2)")) {
            boolean executed = deadlines.run(sleep, 0, sleep::execute);
            assertThat(executed).isTrue();
        }
    }

    private static int selectOne(Connection connection) throws SQLException {
        try (PreparedStatement one = connection.prepareStatement("SELECT 1"); ResultSet rows = one.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
