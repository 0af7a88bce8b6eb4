package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Races between fair claims and what happens beside them.
 *
 * <p>A fair LEASE claim locks the keys it charges in key order, so two claims never wait for each other in a cycle.
 * Its round trip also promotes the queue's due jobs, and a promotion that makes a drained key ready again locks
 * that key's row: held through the claim, that was a second pass in its own order, and two claimers deadlocked
 * ("deadlock detected", seen in a run of 8 capped keys on 3 JVMs). The promotion now commits before the claim.
 *
 * <p>The test plays the other claimer by hand: it holds key k3 as a claim charging it does, lets the claim under
 * test promote a due job of the drained key k6 and wait for k3, then locks k6 as a claim charging k3 and k6 would.
 */
class FairClaimRaceTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FairClaimRaceTests.class);

    private static final String QUEUE = "fair-lock-order";

    private final DataSource dataSource = database.dataSource();

    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);

    private final JobEnginePort engine = new Repositories(dataSource, new Schema("pgqueue"), "pgqueue_schema_history",
            true, false, Duration.ofSeconds(30)).engine();

    private final FairShares shares = new FairShares(Map.of(), Map.of(), 1.0, null, 8, 8);

    @BeforeAll
    static void migrate() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.listener.auto-startup=false")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void aClaimThatRefillsADrainedKeyHoldsNoKeyWhileItWaitsForAnother() throws Exception {
        for (int key = 1; key <= 8; key++) {
            boolean drained = key == 6;
            jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass, drained) VALUES (?, ?, 0, ?)", QUEUE, "k" + key,
                    drained);
            // every key has a ready job, but the drained one, whose job is due: the claim's promotion refills it
            jdbc.update("INSERT INTO pgqueue.job (queue, state, payload, fairness_key, run_at) "
                    + "VALUES (?, ?, '1', ?, now() - interval '1 second')", QUEUE, drained ? "scheduled" : "ready", "k" + key);
        }
        UUID node = UUID.randomUUID();
        jdbc.update("INSERT INTO pgqueue.node (id, host, pid) VALUES (?, 'test', 1)", node);
        ClaimRequest request = new ClaimRequest(QUEUE, 8, 3, false, node, 60_000);

        try (Connection otherClaimer = dataSource.getConnection(); Statement other = otherClaimer.createStatement()) {
            otherClaimer.setAutoCommit(false);
            other.execute("SET LOCAL lock_timeout = '20s'");
            other.execute("SELECT 1 FROM pgqueue.fair_key WHERE queue = '" + QUEUE + "' AND key = 'k3' FOR NO KEY UPDATE");

            CompletableFuture<Claim> claim = CompletableFuture.supplyAsync(() -> engine.claimFairLeased(request, shares));
            // the claim waits for k3, which the other claimer holds
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pgqueue:claim_lease%'",
                    Long.class) == 1);
            // the other claimer goes on to k6; on main the waiting claim held it since its promotion: one of the
            // two was chosen as the victim of a deadlock a second later
            other.execute("SELECT 1 FROM pgqueue.fair_key WHERE queue = '" + QUEUE + "' AND key = 'k6' FOR NO KEY UPDATE");
            otherClaimer.commit();

            Claim claimed = claim.get(20, TimeUnit.SECONDS);
            // k6 too: its promotion committed before the claim began
            assertThat(claimed.jobs()).hasSize(8);
        }
        // the refilled key's job among them
        assertThat(jdbc.queryForObject("SELECT state FROM pgqueue.job WHERE queue = ? AND fairness_key = 'k6'",
                String.class, QUEUE)).isEqualTo("running");
    }

    /**
     * A TRANSACTIONAL claim decides which keys it left empty when it claims, and marks them drained when its
     * handlers' transaction ends. A job of such a key sent while the handlers ran made it ready again: marked
     * drained (as on main), no claim would look at it until a sweep, which a busy queue may not run for long.
     */
    @Test
    void aTransactionalClaimDoesNotMarkDrainedAKeyThatGotAJobWhileItsHandlersRan() {
        String queue = "fair-charge";
        for (String key : new String[] { "refilled", "empty" }) {
            jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, ?, 0)", queue, key);
        }
        // sent while the handlers ran, after the claim had found the key empty
        jdbc.update("INSERT INTO pgqueue.job (queue, state, payload, fairness_key) VALUES (?, 'ready', '1', 'refilled')",
                queue);

        engine.chargeFairness(queue, shares, Map.of("refilled", 1, "empty", 1), java.util.List.of("refilled", "empty"));

        assertThat(jdbc.queryForMap("SELECT bool_or(drained) FILTER (WHERE key = 'refilled') AS refilled, "
                + "bool_or(drained) FILTER (WHERE key = 'empty') AS empty FROM pgqueue.fair_key WHERE queue = ?", queue))
            .containsEntry("refilled", false).containsEntry("empty", true);
    }
}
