package io.pgqueue.reliability;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.reliability.CrashWorker.Work;
import io.pgqueue.testsupport.ReplicatedPostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Failover to a streaming replica: a primary and a standby from the machine's PostgreSQL binaries, the
 * application on a multi-host URL ({@code targetServerType=primary}); the primary is killed while jobs are
 * sent and consumed, and the standby promoted. With synchronous replication nothing acknowledged is lost and
 * TRANSACTIONAL stays exactly once; with asynchronous replication what is lost or repeated is measured.
 */
class FailoverTests {

    private static final int JOBS = 600;

    @Test
    void synchronousReplicationLosesNothingAcknowledgedAndKeepsTransactionalExactlyOnce() throws Exception {
        Outcome outcome = failOver(true);
        assertThat(outcome.lostTransactional()).as("acknowledged TRANSACTIONAL sends lost").isEmpty();
        assertThat(outcome.lostLease()).as("acknowledged LEASE sends lost").isEmpty();
        assertThat(outcome.repeatedTransactional()).as("TRANSACTIONAL effects repeated").isEmpty();
    }

    @Test
    void asynchronousReplicationIsMeasured() throws Exception {
        Outcome outcome = failOver(false);
        // what async replication may lose is the last commits before the crash; whatever survived is done
        System.out.println("Asynchronous failover: " + outcome.lostTransactional().size() + " + "
                + outcome.lostLease().size() + " acknowledged sends lost, " + outcome.repeatedTransactional().size()
                + " TRANSACTIONAL effects repeated, " + outcome.failedSends() + " sends refused during the failover");
        assertThat(outcome.lostTransactional().size() + outcome.lostLease().size()).isLessThan(JOBS / 2);
    }

    private Outcome failOver(boolean synchronous) throws Exception {
        try (ReplicatedPostgres servers = ReplicatedPostgres.start(synchronous)) {
            JdbcTemplate current = new JdbcTemplate(dataSource(servers.jdbcUrl()));
            current.execute(CrashWorker.EFFECT_TABLE);
            Set<Long> acknowledgedTransactional = new HashSet<>();
            Set<Long> acknowledgedLease = new HashSet<>();
            int[] failedSends = new int[1];
            try (WorkerFleet workers = new WorkerFleet(servers.jdbcUrl(), "postgres", "", List.of())) {
                new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                            JacksonAutoConfiguration.class, PgQueueAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + servers.jdbcUrl(),
                            "spring.datasource.username=postgres", "spring.datasource.hikari.connection-timeout=2000",
                            "pgqueue.maintenance.enabled=false", "pgqueue.scheduler.enabled=false")
                    .run((context) -> {
                        assertThat(context).hasNotFailed();
                        long nodes = count(current, "SELECT count(*) FROM pgqueue.node");
                        workers.start(2);
                        // the workers register before the primary dies: a worker that starts during the failover
                        // finds no primary and stops, and nobody drains what is left
                        await().atMost(Duration.ofSeconds(60))
                            .until(() -> count(current, "SELECT count(*) FROM pgqueue.node") >= nodes + 2);
                        QueueTemplate template = context.getBean(QueueTemplate.class);
                        CompletableFuture<Void> failover = null;
                        for (int n = 0; n < JOBS; n++) {
                            if (n == JOBS / 2) {
                                // the primary dies while sends and handlers are in flight
                                failover = CompletableFuture.runAsync(() -> {
                                    servers.killPrimary();
                                    servers.promoteStandby();
                                });
                            }
                            try {
                                acknowledgedTransactional.add(template.send("crash-tx", new Work(n)));
                                acknowledgedLease.add(template.send("crash-lease", new Work(n)));
                            }
                            catch (RuntimeException refused) {
                                failedSends[0]++;
                            }
                        }
                        failover.join();
                    });
                await().atMost(Duration.ofSeconds(120)).until(() -> remaining(current) == 0);
                workers.stopGracefully();
            }

            Map<Long, Long> transactionalEffects = effects(current, "crash-tx");
            Set<Long> leaseDone = effects(current, "crash-lease").keySet();
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        JacksonAutoConfiguration.class, PgQueueAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + servers.jdbcUrl(), "spring.datasource.username=postgres",
                        "pgqueue.listener.auto-startup=false", "pgqueue.maintenance.enabled=false")
                .run((context) -> assertThat(context.getBean(QueueAdmin.class).reconcile()).isEmpty());
            return new Outcome(missing(acknowledgedTransactional, transactionalEffects.keySet()),
                    missing(acknowledgedLease, leaseDone),
                    transactionalEffects.entrySet().stream().filter((e) -> e.getValue() > 1).map(Map.Entry::getKey)
                        .collect(Collectors.toSet()),
                    failedSends[0]);
        }
    }

    private static Set<Long> missing(Set<Long> acknowledged, Set<Long> done) {
        Set<Long> missing = new HashSet<>(acknowledged);
        missing.removeAll(done);
        return missing;
    }

    private static Map<Long, Long> effects(JdbcTemplate jdbc, String queue) {
        return jdbc.queryForList("SELECT job_id, count(*) AS n FROM effect WHERE queue = ? GROUP BY job_id", queue)
            .stream()
            .collect(Collectors.toMap((row) -> ((Number) row.get("job_id")).longValue(),
                    (row) -> ((Number) row.get("n")).longValue()));
    }

    private static long remaining(JdbcTemplate jdbc) {
        Long count = jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE state <> 'dead'", Long.class);
        return (count != null) ? count : 0;
    }

    private static DataSource dataSource(String url) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(url);
        dataSource.setUser("postgres");
        return dataSource;
    }

    record Outcome(Set<Long> lostTransactional, Set<Long> lostLease, Set<Long> repeatedTransactional,
            int failedSends) {
    }

    private static long count(JdbcTemplate jdbc, String sql) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return (count != null) ? count : 0;
    }
}
