package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
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

    /**
     * A cancel reaches the statement's server on a connection of its own, which takes up to the driver's cancel
     * timeout when that server is down: a statement on another database is cancelled on time meanwhile.
     */
    @Test
    void aCancelThatHangsOnAServerThatIsDownDelaysNoOtherCancel() throws Exception {
        CountDownLatch downServerAnswers = new CountDownLatch(1);
        Statement onTheDownServer = (Statement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { Statement.class }, (proxy, method, args) -> {
                    return switch (method.getName()) {
                        case "cancel" -> {
                            // as pgjdbc's cancel waits for a server that does not answer
                            downServerAnswers.await(30, TimeUnit.SECONDS);
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> null;
                    };
                });
        CompletableFuture<Object> hanging = CompletableFuture.supplyAsync(() -> {
            try {
                return deadlines.run(onTheDownServer, 1, () -> {
                    try {
                        return downServerAnswers.await(30, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                });
            }
            catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
        });
        try (Connection connection = database.connect();
                PreparedStatement sleep = connection.prepareStatement("SELECT pg_sleep(30)")) {
            Instant start = Instant.now();
            assertThatExceptionOfType(SQLException.class)
                .isThrownBy(() -> deadlines.run(sleep, 2, sleep::execute))
                .satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("57014"));
            assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(4));
        }
        finally {
            downServerAnswers.countDown();
            hanging.get(10, TimeUnit.SECONDS);
        }
    }

    private static int selectOne(Connection connection) throws SQLException {
        try (PreparedStatement one = connection.prepareStatement("SELECT 1"); ResultSet rows = one.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
