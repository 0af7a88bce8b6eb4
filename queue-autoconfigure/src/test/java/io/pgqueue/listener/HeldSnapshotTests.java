package io.pgqueue.listener;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.model.VacuumHold;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.support.StatementCounter;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A queue beside a transaction that holds a snapshot open (a report, a {@code pg_dump}): vacuum can remove
 * nothing the drain leaves behind, and a claim that reads the ready index from its start visits every job
 * claimed before it. pgqueue sees the hold, names it, and its claims read from where the previous one stopped.
 */
class HeldSnapshotTests {

    private static final TestDatabase database = TestPostgres.createDatabase(HeldSnapshotTests.class);

    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared hit=(\\d+)(?: read=(\\d+))?");

    private static final int JOBS = 20_000;

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    /** The claims that start after a cursor: only their statement compares (run-at, id) with one. */
    private final StatementCounter cursorClaims = new StatementCounter("(j.run_at, j.id) > (");

    /** Every TRANSACTIONAL claim. */
    private final StatementCounter claims = new StatementCounter("SAVEPOINT pgqueue_claim");

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.health.vacuum-check-interval=200ms", "pgqueue.health.vacuum-hold-warning=1s")
        .withBean(Handled.class)
        .withBean(DataSource.class, () -> claims.wrap(cursorClaims.wrap(QueueContextRunners.pool(database))));

    static class Handled {

        final AtomicLong jobs = new AtomicLong();

        @QueueListener(queue = "held", mode = "TRANSACTIONAL", concurrency = "2", batchSize = "50")
        void handle(Map<String, Integer> payload) {
            jobs.incrementAndGet();
        }
    }

    @Test
    void underAHeldSnapshotClaimsReadOnlyPastTheJobsAlreadyClaimedAndStillTakeJobsThatAppearBehindThem()
            throws Exception {
        runner.run((context) -> {
            try (Connection report = database.connect()) {
                holdSnapshot(report);
                QueueAdmin admin = context.getBean(QueueAdmin.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> admin.vacuumHold()
                    .filter((hold) -> hold.age(Instant.now()).compareTo(Duration.ofSeconds(6)) >= 0)
                    .isPresent());
                VacuumHold hold = admin.vacuumHold().orElseThrow();
                assertThat(hold.kind()).isEqualTo(VacuumHold.Kind.TRANSACTION);
                assertThat(hold.pid()).isEqualTo(pid(report));

                Handled handled = context.getBean(Handled.class);
                QueueTemplate template = context.getBean(QueueTemplate.class);
                claims.reset();
                cursorClaims.reset();
                List<Map<String, Integer>> payloads = IntStream.range(0, 1000).mapToObj((i) -> Map.of("n", i)).toList();
                for (int batch = 0; batch < JOBS / payloads.size(); batch++) {
                    template.sendBatch("held", payloads);
                }
                await().atMost(Duration.ofSeconds(60)).until(() -> handled.jobs.get() == JOBS);

                // most claims started after a cursor; once a second one read from the start
                assertThat(cursorClaims.count()).isGreaterThan(claims.count() / 2);
                assertThat(claims.count()).isGreaterThan(cursorClaims.count());

                // what the two reads cost now, with one job ready behind 20,000 finished ones vacuum may not remove
                Map<String, Object> last = jdbc.queryForMap("WITH inserted AS (INSERT INTO pgqueue.job (queue, state, "
                        + "payload) SELECT 'probe', 'ready', '{}' FROM generate_series(1, " + JOBS + ") "
                        + "RETURNING run_at, id) SELECT run_at::text AS run_at, max(id) AS id FROM inserted GROUP BY run_at");
                jdbc.update("DELETE FROM pgqueue.job WHERE queue = 'probe'");
                jdbc.update("INSERT INTO pgqueue.job (queue, state, payload) VALUES ('probe', 'ready', '{}')");
                long fromStart = buffers("SELECT id FROM pgqueue.job j WHERE j.queue = 'probe' AND j.state = 'ready' "
                        + "ORDER BY j.priority DESC, j.run_at, j.id LIMIT 50");
                long afterCursor = buffers("SELECT id FROM pgqueue.job j WHERE j.queue = 'probe' AND j.state = 'ready' "
                        + "AND j.priority = 0 AND (j.run_at, j.id) > ('" + last.get("run_at") + "'::timestamptz, "
                        + last.get("id") + ") ORDER BY j.run_at, j.id LIMIT 50");
                assertThat(fromStart).isGreaterThan(100);
                assertThat(afterCursor).isLessThan(fromStart / 10);

                // a job that became ready behind the cursor (an old run-at: released, rescued, rolled back)
                long behind = jdbc.queryForObject("INSERT INTO pgqueue.job (queue, state, payload, run_at) "
                        + "VALUES ('held', 'ready', '{\"n\": -1}', now() - interval '1 day') RETURNING id", Long.class);
                template.send("held", Map.of("n", -2));
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE id = ?", Long.class,
                            behind) == 0);
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.jobs.get() == JOBS + 2);
            }
        });
    }

    @Test
    void withoutAHoldEveryClaimReadsFromTheStartAndNothingIsReported() {
        runner.run((context) -> {
            Handled handled = context.getBean(Handled.class);
            QueueTemplate template = context.getBean(QueueTemplate.class);
            claims.reset();
            cursorClaims.reset();
            List<Map<String, Integer>> payloads = IntStream.range(0, 500).mapToObj((i) -> Map.of("n", i)).toList();
            template.sendBatch("held", payloads);
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.jobs.get() == payloads.size());

            assertThat(claims.count()).isPositive();
            assertThat(cursorClaims.count()).isZero();
            assertThat(context.getBean(QueueAdmin.class).vacuumHold()
                .filter((hold) -> hold.age(Instant.now()).compareTo(Duration.ofSeconds(5)) >= 0)).isEmpty();
        });
    }

    private static void holdSnapshot(Connection report) throws Exception {
        report.setAutoCommit(false);
        report.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement statement = report.createStatement()) {
            statement.executeQuery("SELECT count(*) FROM pg_class").close();
        }
    }

    private static int pid(Connection connection) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** The buffers the statement's execution touched (its top node's), not counting its planning. */
    private long buffers(String query) {
        for (String line : jdbc.queryForList("EXPLAIN (ANALYZE, BUFFERS) " + query, String.class)) {
            Matcher matcher = BUFFERS.matcher(line);
            if (matcher.find()) {
                return Long.parseLong(matcher.group(1))
                        + ((matcher.group(2) != null) ? Long.parseLong(matcher.group(2)) : 0);
            }
        }
        throw new IllegalStateException("No buffers in the plan of " + query);
    }
}
