package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.SQLException;
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
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

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

    private final Repositories repositories = new Repositories(dataSource, new Schema("pgqueue"),
            "pgqueue_schema_history", true, false, Duration.ofSeconds(30));

    private final JobEnginePort engine = repositories.engine();

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

    /**
     * A LEASE claim that finds a key empty while a transaction is sending it a job (the send holds the key's row
     * FOR KEY SHARE until it commits) leaves the key as it was: marked drained, as on main, no claim would look at
     * the key again until a sweep, which a busy queue may not run for long (and an idle one runs every 500 ms).
     */
    @Test
    void aLeaseClaimDoesNotMarkDrainedAKeyWhoseJobIsBeingSent() throws Exception {
        String queue = "fair-sending";
        jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'k', 0)", queue);
        ClaimRequest request = new ClaimRequest(queue, 8, 3, false, node(), 60_000);

        try (Connection sender = sendingTo(queue, "k")) {

            Claim empty = engine.claimFairLeased(request, shares);

            assertThat(empty.jobs()).isEmpty();
            // not reported either: its claimer would claim again at once, and again, until the sender commits
            assertThat(empty.emptiedKeys()).isEmpty();
            sender.commit();
        }
        assertThat(engine.claimFairLeased(request, shares).jobs()).hasSize(1);
    }

    /**
     * The other order: the job's send commits after the claim's snapshot was taken but before the claim locks the
     * key (here: while it waits for the key's row, held by another claimer). The claim cannot see the job and
     * marks the key drained; it looks again in a statement of its own, whose snapshot sees the job.
     */
    @Test
    void aLeaseClaimLooksAgainAtAKeyWhoseJobCommittedWhileItWaitedForTheKey() throws Exception {
        String queue = "fair-committed";
        jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'k', 0)", queue);
        ClaimRequest request = new ClaimRequest(queue, 8, 3, false, node(), 60_000);

        try (Connection otherClaimer = holdingKey(queue, "k", "FOR NO KEY UPDATE")) {
            CompletableFuture<Claim> claim = CompletableFuture.supplyAsync(() -> engine.claimFairLeased(request, shares));
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pgqueue:claim_lease%'",
                    Long.class) == 1);
            jdbc.queryForObject("SELECT pgqueue.send(?, '1'::jsonb, p_fairness_key => 'k')", Long.class, queue);
            otherClaimer.commit();

            assertThat(claim.get(20, TimeUnit.SECONDS).jobs()).isEmpty();
        }
        assertThat(engine.claimFairLeased(request, shares).jobs()).hasSize(1);
    }

    /** A TRANSACTIONAL claim's charge at its commit, while a transaction is sending a job to a key it found empty. */
    @Test
    void aTransactionalChargeDoesNotMarkDrainedAKeyWhoseJobIsBeingSent() throws Exception {
        String queue = "fair-charge-sending";
        jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'k', 0)", queue);
        try (Connection sender = sendingTo(queue, "k")) {

            engine.chargeFairness(queue, shares, Map.of("k", 0), java.util.List.of("k"));

            sender.commit();
        }
        assertThat(jdbc.queryForObject("SELECT drained FROM pgqueue.fair_key WHERE queue = ? AND key = 'k'",
                Boolean.class, queue)).isFalse();
    }

    /**
     * A send whose statement began before a claim marked its key drained, and that waited for the claim's lock on
     * the key: it must see the mark the claim committed (its snapshot does not), or its job waits for a sweep.
     * Both ways of sending: the application's and the SQL function other languages call.
     */
    @Test
    void aSendThatWaitedForAClaimMarkingItsKeyDrainedMakesTheKeyClaimableAgain() throws Exception {
        Map<String, Runnable> senders = Map.of(
                "fair-waiting-sql", () -> jdbc.queryForObject("SELECT pgqueue.send('fair-waiting-sql', '1'::jsonb, "
                        + "p_fairness_key => 'k')", Long.class),
                "fair-waiting-app", () -> repositories.publishing().enqueue("fair-waiting-app", java.util.List.of(
                        new NewJob("1", null, null, (short) 0, null, 0, null, null, null, null, null, null, "k")), false));
        for (Map.Entry<String, Runnable> sending : senders.entrySet()) {
            String queue = sending.getKey();
            jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'k', 0)", queue);
            // what a claim that found the key empty does: it locks the key against statements making its jobs ready,
            // and marks it
            try (Connection claimer = holdingKey(queue, "k", "FOR UPDATE"); Statement claim = claimer.createStatement()) {
                CompletableFuture<Void> send = CompletableFuture.runAsync(sending.getValue());
                await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND backend_type = 'client backend'"
                                + " AND pid <> pg_backend_pid()", Long.class) == 1);
                claim.execute("UPDATE pgqueue.fair_key SET drained = true WHERE queue = '" + queue + "' AND key = 'k'");
                claimer.commit();
                send.get(20, TimeUnit.SECONDS);
            }
            assertThat(jdbc.queryForObject("SELECT drained FROM pgqueue.fair_key WHERE queue = ? AND key = 'k'",
                    Boolean.class, queue)).as(queue).isFalse();
            assertThat(engine.claimFairLeased(new ClaimRequest(queue, 8, 3, false, node(), 60_000), shares).jobs())
                .as(queue).hasSize(1);
        }
    }

    /**
     * Statistics taken while one key held the whole backlog make the planner expect every job to match any key:
     * a statement that asked whether a key has a ready job with EXISTS then read the whole job table per key (a
     * sweep behind 200,000 jobs of one key took 490 ms, small keys' p99 pickup was over half a second). Their
     * prepared, generic plans must probe the ready-key index.
     */
    @Test
    void statementsThatAskWhetherAKeyHasReadyJobsProbeTheIndexWhateverTheStatistics() throws Exception {
        jdbc.update("INSERT INTO pgqueue.job (queue, state, payload, fairness_key) "
                + "SELECT 'fair-stats', 'ready', '1', 'big' FROM generate_series(1, 20000)");
        jdbc.execute("ANALYZE pgqueue.job");
        FairnessCascade fairness = new FairnessCascade();
        Map<String, String> statements = Map.of("sweep-settle", fairness.sweepSettleStatement(),
                "recheck-drained", fairness.recheckDrainedStatement());
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("SET plan_cache_mode = force_generic_plan");
            for (Map.Entry<String, String> named : statements.entrySet()) {
                String text = named.getValue().replace("{schema}", "pgqueue").replace(":queue", "$1")
                    .replace(":keys", "$2");
                statement.execute("PREPARE probe(text, text[]) AS " + text);
                StringBuilder plan = new StringBuilder();
                try (java.sql.ResultSet rows = statement.executeQuery("EXPLAIN EXECUTE probe('fair-stats', '{a,b}')")) {
                    while (rows.next()) {
                        plan.append(rows.getString(1)).append('\n');
                    }
                }
                statement.execute("DEALLOCATE probe");
                assertThat(plan.toString()).as(named.getKey()).doesNotContain("Seq Scan on job");
            }
        }
        finally {
            jdbc.update("DELETE FROM pgqueue.job WHERE queue = 'fair-stats'");
        }
    }

    /**
     * A key alone in its queue owes nothing to any other (one that becomes active starts at its pass), so its
     * claims do not charge it: they lock no key row, and two claimers of one busy key no longer take turns on
     * it. The test holds the row as another claim charging it would; on main the claim waited for it.
     */
    @Test
    void claimsOfAKeyAloneInItsQueueDoNotWaitForItsRow() throws Exception {
        String queue = "fair-alone";
        jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'solo', 7)", queue);
        jdbc.update("INSERT INTO pgqueue.job (queue, state, payload, fairness_key) "
                + "SELECT ?, 'ready', '1', 'solo' FROM generate_series(1, 20)", queue);
        ClaimRequest request = new ClaimRequest(queue, 8, 3, false, node(), 60_000);
        try (Connection otherClaimer = holdingKey(queue, "solo", "FOR NO KEY UPDATE")) {

            Claim claimed = CompletableFuture.supplyAsync(() -> engine.claimFairLeased(request, shares))
                .get(10, TimeUnit.SECONDS);

            assertThat(claimed.jobs()).hasSize(8);
            otherClaimer.commit();
        }
        // a key that becomes active now starts level with it
        jdbc.queryForObject("SELECT pgqueue.send(?, '1'::jsonb, p_fairness_key => 'newcomer')", Long.class, queue);
        assertThat(jdbc.queryForList("SELECT pass FROM pgqueue.fair_key WHERE queue = ? ORDER BY key", Double.class, queue))
            .containsExactly(7.0, 7.0);
    }

    /**
     * The same for a TRANSACTIONAL claim, whose keys are charged at the end of the handlers' transaction: charging
     * a key alone locked its row until the commit, so every transaction of a busy key's claims queued for the
     * previous one's commit.
     */
    @Test
    void theChargeOfATransactionalClaimOfAKeyAloneDoesNotWaitForItsRow() throws Exception {
        String queue = "fair-alone-charged";
        jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'solo', 3)", queue);
        try (Connection otherClaimer = holdingKey(queue, "solo", "FOR NO KEY UPDATE")) {

            CompletableFuture.runAsync(() -> engine.chargeFairness(queue, shares, Map.of("solo", 5), java.util.List.of()))
                .get(10, TimeUnit.SECONDS);

            otherClaimer.commit();
        }
        assertThat(jdbc.queryForObject("SELECT pass FROM pgqueue.fair_key WHERE queue = ?", Double.class, queue))
            .isEqualTo(3.0);
        // with a second key active, charges move passes again
        jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'other', 3)", queue);
        engine.chargeFairness(queue, shares, Map.of("solo", 5), java.util.List.of());
        assertThat(jdbc.queryForObject("SELECT pass FROM pgqueue.fair_key WHERE queue = ? AND key = 'solo'", Double.class,
                queue)).isEqualTo(8.0);
    }

    /**
     * TRANSACTIONAL claims that took jobs of the same keys (a claim of ten jobs over ten keys takes one of each)
     * charged them at their ends by locking the keys' rows until their commits, so each waited for the previous
     * one's. A charge now moves the passes of the keys it can lock at once and leaves the others' charges as rows
     * of their own, counted when they commit, never when they roll back, and folded into the pass by the next
     * statement that locks the key: a later charge of its jobs, or a sweep.
     */
    @Test
    void theChargesOfTransactionalClaimsOfTheSameKeysDoNotWaitForEachOthersCommits() throws Exception {
        String queue = "fair-charged-side-by-side";
        jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'a', 0), (?, 'b', 0)", queue, queue);
        try (Connection otherClaimer = holdingKey(queue, "a", "FOR NO KEY UPDATE")) {

            chargeInTransaction(queue, Map.of("a", 6, "b", 1), true);
            chargeInTransaction(queue, Map.of("a", 100, "b", 100), false);

            otherClaimer.commit();
        }
        assertThat(passes(queue)).containsExactly(0.0, 1.0);
        assertThat(jdbc.queryForList("SELECT amount FROM pgqueue.fair_charge WHERE queue = ? AND key = 'a'",
                Double.class, queue)).containsExactly(6.0);
        engine.sweepFairness(queue);
        assertThat(passes(queue)).containsExactly(6.0, 1.0);

        try (Connection otherClaimer = holdingKey(queue, "a", "FOR NO KEY UPDATE")) {
            chargeInTransaction(queue, Map.of("a", 3), true);
            otherClaimer.commit();
        }
        engine.chargeFairness(queue, shares, Map.of("a", 1), java.util.List.of());
        assertThat(passes(queue)).containsExactly(10.0, 1.0);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.fair_charge WHERE queue = ?", Long.class, queue))
            .isZero();
        // the claims go by the passes: b's four next jobs come before a's first (tags 2..5 against 11)
        jdbc.update("INSERT INTO pgqueue.job (queue, state, payload, fairness_key) "
                + "SELECT ?, 'ready', '1', k FROM unnest(array['a', 'b']) AS k, generate_series(1, 10)", queue);
        Claim claim = engine.claimFairLeased(new ClaimRequest(queue, 4, 3, false, node(), 60_000), shares);
        assertThat(claim.jobs()).extracting(ClaimedJob::fairnessKey).containsExactly("b", "b", "b", "b");
    }

    /** A TRANSACTIONAL claim's charge in a transaction of its own, which commits or rolls back; it must not wait. */
    private void chargeInTransaction(String queue, Map<String, Integer> taken, boolean commit) throws Exception {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        CompletableFuture.runAsync(() -> transaction.executeWithoutResult((status) -> {
            engine.chargeFairness(queue, shares, taken, java.util.List.of());
            if (!commit) {
                status.setRollbackOnly();
            }
        })).get(10, TimeUnit.SECONDS);
    }

    private java.util.List<Double> passes(String queue) {
        return jdbc.queryForList("SELECT pass FROM pgqueue.fair_key WHERE queue = ? ORDER BY key", Double.class, queue);
    }

    /**
     * A transaction of its own holding the key's row as a claim does ({@code lock}: FOR NO KEY UPDATE, FOR UPDATE)
     * until it commits or is closed.
     */
    private Connection holdingKey(String queue, String key, String lock) throws SQLException {
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT 1 FROM pgqueue.fair_key WHERE queue = '" + queue + "' AND key = '" + key + "' " + lock);
        }
        return connection;
    }

    /** A transaction of its own that has sent the key a job and not committed: its send holds the key FOR KEY SHARE. */
    private Connection sendingTo(String queue, String key) throws SQLException {
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pgqueue.send('" + queue + "', '1'::jsonb, p_fairness_key => '" + key + "')");
        }
        return connection;
    }

    private UUID node() {
        UUID node = UUID.randomUUID();
        jdbc.update("INSERT INTO pgqueue.node (id, host, pid) VALUES (?, 'test', 1)", node);
        return node;
    }
}
