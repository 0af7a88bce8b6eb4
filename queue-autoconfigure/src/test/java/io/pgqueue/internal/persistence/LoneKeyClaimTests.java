package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fair queue whose one key is alone is claimed like a plain queue (on the ready-key index, the promotion in the
 * same round trip, no key row touched) once a fair claim found the key alone; what fairness promises must hold
 * around it: a second key gets its share at the next claim, an emptied key is marked drained, a capped key keeps
 * its cap, a paused key or queue is not claimed.
 */
class LoneKeyClaimTests {

    private static final TestDatabase database = TestPostgres.createDatabase(LoneKeyClaimTests.class);

    private final DataSource dataSource = database.dataSource();

    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);

    private final JobEnginePort engine = new Repositories(dataSource, new Schema("pgqueue"), "pgqueue_schema_history",
            true, false, Duration.ofSeconds(30)).engine();

    private final FairShares uncapped = new FairShares(Map.of(), Map.of(), 1.0, null, 16, 10);

    @BeforeAll
    static void migrate() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.listener.auto-startup=false")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    private UUID node() {
        UUID node = UUID.randomUUID();
        jdbc.update("INSERT INTO pgqueue.node (id, host, pid) VALUES (?, 'test', 1)", node);
        return node;
    }

    /** Ready jobs of a key, its row active (as a send leaves it). */
    private void ready(String queue, String key, int jobs) {
        jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, ?, "
                + "coalesce((SELECT min(pass) FROM pgqueue.fair_key WHERE queue = ? AND active AND NOT drained), 0)) "
                + "ON CONFLICT (queue, key) DO UPDATE SET active = true, drained = false", queue, key, queue);
        jdbc.update("INSERT INTO pgqueue.job (queue, state, payload, fairness_key) "
                + "SELECT ?, 'ready', '1', ? FROM generate_series(1, ?)", queue, key, jobs);
    }

    private static List<String> keys(Claim claim) {
        return claim.jobs().stream().map(ClaimedJob::fairnessKey).toList();
    }

    @Test
    void aSecondKeyGetsItsShareAtTheClaimAfterItArrives() {
        String queue = "lone-then-two";
        ready(queue, "big", 100);
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, node(), 60_000);

        assertThat(keys(engine.claimFairLeased(request, uncapped))).containsOnly("big").hasSize(4);
        // the key alone: this claim is the plain one
        assertThat(keys(engine.claimFairLeased(request, uncapped))).containsOnly("big").hasSize(4);

        ready(queue, "small", 10);
        assertThat(keys(engine.claimFairLeased(request, uncapped))).containsExactlyInAnyOrder("big", "big", "small",
                "small");
        assertThat(keys(engine.claimFairLeased(request, uncapped))).containsExactlyInAnyOrder("big", "big", "small",
                "small");
    }

    @Test
    void aLoneKeyTakesItsJobsInClaimOrderAndIsMarkedDrainedWhenItHasNoneLeft() {
        String queue = "lone-drains";
        ready(queue, "only", 6);
        jdbc.update("UPDATE pgqueue.job SET priority = 5 WHERE id = (SELECT max(id) FROM pgqueue.job WHERE queue = ?)",
                queue);
        long highest = jdbc.queryForObject("SELECT max(id) FROM pgqueue.job WHERE queue = ?", Long.class, queue);
        long lowest = jdbc.queryForObject("SELECT min(id) FROM pgqueue.job WHERE queue = ?", Long.class, queue);
        UUID node = node();
        ClaimRequest one = new ClaimRequest(queue, 1, 3, false, node, 60_000);
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, node, 60_000);

        assertThat(engine.claimFairLeased(one, uncapped).jobs()).extracting(ClaimedJob::id).containsExactly(highest);
        // the key alone: the plain claim, in claim order too
        assertThat(engine.claimFairLeased(one, uncapped).jobs()).extracting(ClaimedJob::id).containsExactly(lowest);
        assertThat(engine.claimFairLeased(request, uncapped).jobs()).hasSize(4);
        Claim empty = engine.claimFairLeased(request, uncapped);

        assertThat(empty.jobs()).isEmpty();
        assertThat(jdbc.queryForObject("SELECT drained FROM pgqueue.fair_key WHERE queue = ? AND key = 'only'",
                Boolean.class, queue)).isTrue();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ? AND state = 'running'",
                Long.class, queue)).isEqualTo(6);
    }

    @Test
    void aCappedKeyAloneKeepsItsCap() {
        String queue = "lone-capped";
        ready(queue, "capped", 10);
        FairShares capped = new FairShares(Map.of(), Map.of(), 1.0, 2, 16, 10);
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, node(), 60_000);

        assertThat(engine.claimFairLeased(request, capped).jobs()).hasSize(2);
        assertThat(engine.claimFairLeased(request, capped).jobs()).isEmpty();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ? AND state = 'running'",
                Long.class, queue)).isEqualTo(2);
    }

    @Test
    void aPausedLoneKeyIsNotClaimed() {
        String queue = "lone-paused";
        ready(queue, "only", 10);
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, node(), 60_000);
        assertThat(engine.claimFairLeased(request, uncapped).jobs()).hasSize(4);

        jdbc.update("UPDATE pgqueue.fair_key SET paused = true WHERE queue = ?", queue);
        assertThat(engine.claimFairLeased(request, uncapped).jobs()).isEmpty();
        jdbc.update("UPDATE pgqueue.fair_key SET paused = false WHERE queue = ?", queue);
        jdbc.update("INSERT INTO pgqueue.queue_state (queue, paused) VALUES (?, true) "
                + "ON CONFLICT (queue) DO UPDATE SET paused = true", queue);
        assertThat(engine.claimFairLeased(request, uncapped).jobs()).isEmpty();
    }

    @Test
    void aLoneKeysTransactionalClaimsTakeItsJobsAtTheTopLevelAndRestoreThemWhenTakenBack() {
        String queue = "lone-transactional";
        ready(queue, "only", 20);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, null, 60_000);

        assertThat(transaction.execute((status) -> engine.claimFairAndDelete(request, uncapped)).jobs()).hasSize(4);
        Claim alone = transaction.execute((status) -> engine.claimFairAndDelete(request, uncapped));
        assertThat(alone.jobs()).hasSize(4);
        assertThat(alone.keyAlone()).as("claimed as a key alone, charged nothing").isTrue();
        // the claim comes before its savepoint, as a plain queue's: rolling back to the savepoint keeps it
        transaction.executeWithoutResult((status) -> {
            assertThat(engine.claimFairAndDelete(request, uncapped).jobs()).hasSize(4);
            jdbc.execute("ROLLBACK TO SAVEPOINT pgqueue_claim");
        });
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ?", Long.class, queue))
            .isEqualTo(8);
        // a handler snoozed: the claim is taken back in its transaction, its other jobs ready again
        transaction.executeWithoutResult((status) -> {
            Claim taken = engine.claimFairAndDelete(request, uncapped);
            assertThat(taken.jobs()).hasSize(4);
            assertThat(taken.undo().restores()).as("restored from the claimed rows").isTrue();
            engine.snoozeAfterRollback(taken.jobs().get(0).id(), taken.jobs().get(0).attempt(), Duration.ofHours(1),
                    taken.undo());
        });
        assertThat(jdbc.queryForMap("SELECT count(*) FILTER (WHERE state = 'ready') AS ready, "
                + "count(*) FILTER (WHERE state = 'scheduled') AS scheduled FROM pgqueue.job WHERE queue = ?", queue))
            .containsEntry("ready", 7L).containsEntry("scheduled", 1L);

        ready(queue, "other", 10);
        Claim shared = transaction.execute((status) -> engine.claimFairAndDelete(request, uncapped));
        assertThat(keys(shared)).containsExactlyInAnyOrder("only", "only", "other", "other");
        assertThat(shared.keyAlone()).isFalse();
    }

    /** A key alone is not charged: its claims take no key row, and one held elsewhere keeps none waiting. */
    @Test
    void aLoneKeysClaimsDoNotWaitForItsRow() throws Exception {
        String queue = "lone-unlocked";
        ready(queue, "only", 20);
        ClaimRequest request = new ClaimRequest(queue, 4, 3, false, node(), 60_000);
        assertThat(engine.claimFairLeased(request, uncapped).jobs()).hasSize(4);
        try (Connection other = dataSource.getConnection(); Statement holding = other.createStatement()) {
            other.setAutoCommit(false);
            holding.execute("SELECT 1 FROM pgqueue.fair_key WHERE queue = '" + queue + "' FOR UPDATE");
            Claim claim = CompletableFuture.supplyAsync(() -> engine.claimFairLeased(request, uncapped))
                .get(10, TimeUnit.SECONDS);
            assertThat(claim.jobs()).hasSize(4);
            other.rollback();
        }
    }
}
