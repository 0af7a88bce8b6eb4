package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The claims of a queue capped by {@code max-running} alone, one round trip each, and the acknowledgement of one
 * job: what they must still guarantee (the cap, exactly, against claimers on other connections) and what they save.
 */
class CappedClaimTests {

    private static final TestDatabase database = TestPostgres.createDatabase(CappedClaimTests.class);

    private final DataSource dataSource = database.dataSource();

    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);

    private final Repositories repositories = repositories(dataSource);

    private final JobEnginePort engine = repositories.engine();

    @BeforeAll
    static void migrate() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.listener.auto-startup=false")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    private static Repositories repositories(DataSource dataSource) {
        return new Repositories(dataSource, new Schema("pgqueue"), "pgqueue_schema_history", true, false,
                Duration.ofSeconds(30));
    }

    private UUID node() {
        UUID node = UUID.randomUUID();
        jdbc.update("INSERT INTO pgqueue.node (id, host, pid) VALUES (?, 'test', 1)", node);
        return node;
    }

    private void ready(String queue, int jobs) {
        jdbc.update("INSERT INTO pgqueue.job (queue, state, payload) SELECT ?, 'ready', '1' FROM generate_series(1, ?)",
                queue, jobs);
    }

    private long running(String queue) {
        return jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ? AND state = 'running'", Long.class,
                queue);
    }

    @Test
    void aCappedClaimTakesTheRoomLeftAndSaysTheCapCutItShort() {
        String queue = "capped-room";
        ready(queue, 10);
        UUID node = node();
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, node, 60_000);

        Claim first = engine.claimThrottled(request, 3, null);
        assertThat(first.jobs()).hasSize(3);
        assertThat(first.throttle().capReached()).isTrue();
        Claim second = engine.claimThrottled(request, 3, null);
        assertThat(second.jobs()).isEmpty();
        assertThat(second.throttle().capReached()).isTrue();
        assertThat(running(queue)).isEqualTo(3);

        // a cap above the claim's size: a full claim, not cut short
        Claim wide = engine.claimThrottled(request, 100, null);
        assertThat(wide.jobs()).hasSize(4);
        assertThat(wide.throttle().capReached()).isFalse();
    }

    /**
     * The claim's statements read with snapshots taken after the throttle's lock was granted: a claimer that held the
     * lock while it started jobs is seen to have started them. Counted in the claim's first snapshot (one
     * statement taking the lock and counting), the other claimer's jobs would be missed and the cap exceeded.
     */
    @Test
    void aCappedClaimWaitsForAnotherClaimerOfTheQueueAndCountsTheJobsItStarted() throws Exception {
        String queue = "capped-race";
        ready(queue, 10);
        UUID node = node();
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, node, 60_000);
        try (Connection otherClaimer = dataSource.getConnection(); Statement other = otherClaimer.createStatement()) {
            otherClaimer.setAutoCommit(false);
            other.execute("SELECT pg_advisory_xact_lock(hashtext('pgqueue.throttle.pgqueue." + queue + "'))");

            CompletableFuture<Claim> claim = CompletableFuture.supplyAsync(() -> engine.claimThrottled(request, 2, null));
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pgqueue:claim.lease-capped:4 %'",
                    Long.class) == 1);
            other.execute("UPDATE pgqueue.job SET state = 'running', attempts = 1, locked_by = '" + node + "' "
                    + "WHERE id IN (SELECT id FROM pgqueue.job WHERE queue = '" + queue + "' ORDER BY id LIMIT 2)");
            otherClaimer.commit();

            Claim claimed = claim.get(20, TimeUnit.SECONDS);
            assertThat(claimed.jobs()).isEmpty();
            assertThat(claimed.throttle().capReached()).isTrue();
        }
        assertThat(running(queue)).isEqualTo(2);
    }

    /** The throttle's lock lasts as long as the claim's round trip, whatever the pool's auto-commit. */
    @Test
    void aCappedClaimLetsGoOfTheThrottleWhenItsRoundTripEnds() throws Exception {
        String queue = "capped-lock";
        ready(queue, 4);
        for (boolean autoCommit : new boolean[] { true, false }) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(autoCommit);
                Claim claimed = repositories(new SingleConnectionDataSource(connection, true)).engine()
                    .claimThrottled(new ClaimRequest(queue, 1, 3, false, node(), 60_000), 4, null);
                assertThat(claimed.jobs()).hasSize(1);
                assertThat(jdbc.queryForObject("SELECT pg_try_advisory_lock(hashtext('pgqueue.throttle.pgqueue." + queue
                        + "')) AND pg_advisory_unlock(hashtext('pgqueue.throttle.pgqueue." + queue + "'))", Boolean.class))
                    .as("lock free after a claim with auto-commit %s", autoCommit).isTrue();
                connection.setAutoCommit(true);
            }
        }
        assertThat(running(queue)).as("both claims committed").isEqualTo(2);
    }

    @Test
    void aCompletionClaimsAJobInItsPlaceWithinTheCap() {
        String queue = "capped-refill";
        ready(queue, 5);
        UUID node = node();
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, node, 60_000);
        List<ClaimedJob> started = engine.claimThrottled(request, 2, null).jobs();
        assertThat(started).hasSize(2);

        Claim refill = engine.completeThenClaimCapped(node, Completion.of(started.get(0), null), request, 2);

        assertThat(refill.jobs()).hasSize(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE id = ?", Long.class, started.get(0).id()))
            .as("completed").isZero();
        assertThat(running(queue)).isEqualTo(2);

        // another node took the room meanwhile: the completion still commits, and claims nothing
        jdbc.update("UPDATE pgqueue.job SET state = 'running', attempts = 1, locked_by = ? "
                + "WHERE id = (SELECT min(id) FROM pgqueue.job WHERE queue = ? AND state = 'ready')", node(), queue);
        Claim none = engine.completeThenClaimCapped(node, Completion.of(started.get(1), null), request, 2);
        assertThat(none.jobs()).isEmpty();
        assertThat(running(queue)).isEqualTo(2);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE id = ?", Long.class, started.get(1).id()))
            .as("completed").isZero();
    }

    /**
     * One job's acknowledgement, the usual one of a queue that is not busy, is planned once: the id list of the
     * batch statement made PostgreSQL plan each one anew (a custom plan every time).
     */
    @Test
    void aSingleAcknowledgementUsesTheGenericPlan() throws Exception {
        String queue = "acks";
        UUID node = node();
        jdbc.update("INSERT INTO pgqueue.job (queue, state, payload, attempts, locked_by) "
                + "SELECT ?, 'running', '1', 1, ? FROM generate_series(1, 20)", queue, node);
        // a job table of some size, analysed: the estimates that decide between the plans are those of production
        ready("acks-backlog", 50_000);
        jdbc.execute("ANALYZE pgqueue.job");
        List<Long> ids = jdbc.queryForList("SELECT id FROM pgqueue.job WHERE queue = ? ORDER BY id", Long.class, queue);
        SingleConnectionDataSource single = new SingleConnectionDataSource(dataSource.getConnection(), true);
        try {
            JobEnginePort onOneConnection = repositories(single).engine();
            for (long id : ids) {
                assertThat(onOneConnection.complete(node, List.of(new Completion(id, 1, null, null, null, Cascades.NONE))))
                    .isEqualTo(1);
            }
            assertThat(new JdbcTemplate(single).queryForObject("SELECT coalesce(sum(generic_plans), 0) FROM pg_prepared_statements "
                    + "WHERE statement LIKE '/* pgqueue:finish.complete%'", Long.class)).isGreaterThan(0);
        }
        finally {
            single.destroy();
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ?", Long.class, queue)).isZero();
    }
}
