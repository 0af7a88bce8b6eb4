package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fair claim is planned once per connection: the server's choice between a plan for the values and a generic
 * one averaged the custom plans' costs over the connection's life, and a fair claim's estimate moves tenfold with
 * the job table's statistics, so it planned the claim anew at every execution for long stretches (2-4 ms of CPU
 * each). The claim asks for the generic plan for itself only: the transaction's later statements (a handler's)
 * are planned as the connection's default says.
 */
class FairClaimPlanningTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FairClaimPlanningTests.class);

    private final DataSource dataSource = database.dataSource();

    private final FairShares shares = new FairShares(Map.of(), Map.of(), 1.0, null, 16, 10);

    @BeforeAll
    static void migrate() {
        QueueContextRunners.on(database).withPropertyValues("pgqueue.listener.auto-startup=false")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void fairClaimsArePlannedOnceAndLeaveTheTransactionsPlanningAsItWas() throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            SingleConnectionDataSource one = new SingleConnectionDataSource(connection, true);
            JdbcTemplate jdbc = new JdbcTemplate(one);
            JobEnginePort engine = new Repositories(one, new Schema("pgqueue"), "pgqueue_schema_history", true, false,
                    Duration.ofSeconds(30)).engine();
            TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(one));
            UUID node = UUID.randomUUID();
            jdbc.update("INSERT INTO pgqueue.node (id, host, pid) VALUES (?, 'test', 1)", node);
            for (String queue : new String[] { "planned-tx", "planned-lease" }) {
                jdbc.update("INSERT INTO pgqueue.fair_key (queue, key, pass) VALUES (?, 'a', 0), (?, 'b', 0)", queue, queue);
                jdbc.update("INSERT INTO pgqueue.job (queue, state, payload, fairness_key) "
                        + "SELECT ?, 'ready', '1', k FROM unnest(array['a', 'b']) AS k, generate_series(1, 40)", queue);
            }

            for (int claim = 0; claim < 8; claim++) {
                String afterClaim = transaction.execute((status) -> {
                    assertThat(engine.claimFairAndDelete(new ClaimRequest("planned-tx", 4, 3, false, null, 60_000),
                            shares).jobs()).hasSize(4);
                    return jdbc.queryForObject("SHOW plan_cache_mode", String.class);
                });
                assertThat(afterClaim).as("the handlers' statements are planned as before").isEqualTo("auto");
                assertThat(engine.claimFairLeased(new ClaimRequest("planned-lease", 4, 3, false, node, 60_000), shares)
                    .jobs()).hasSize(4);
                assertThat(jdbc.queryForObject("SHOW plan_cache_mode", String.class)).isEqualTo("auto");
            }

            for (String claim : new String[] { "claim.fair-and-delete:", "claim.fair-lease:" }) {
                Map<String, Object> plans = jdbc.queryForMap("SELECT count(*) AS statements, "
                        + "coalesce(sum(custom_plans), 0)::bigint AS custom, coalesce(sum(generic_plans), 0)::bigint AS generic "
                        + "FROM pg_prepared_statements WHERE statement LIKE ? AND statement LIKE '%fair_shares%'",
                        "%pgqueue:" + claim + "%");
                assertThat(plans).as(claim).containsEntry("statements", 1L).containsEntry("custom", 0L)
                    .containsEntry("generic", 8L);
            }
        }
    }
}
