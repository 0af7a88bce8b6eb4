package io.pgqueue.databases;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.support.StatementCounter;
import io.pgqueue.testsupport.ReplicatedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listings from a streaming replica ({@code pgqueue.replica}): a primary and its standby made from the
 * machine's PostgreSQL binaries (skipped without them, unless real components are required).
 */
class ReplicaReadsTests {

    private static ReplicatedPostgres servers;

    private static final StatementCounter replicaStatements = new StatementCounter();

    record Work(int n) {
    }

    @BeforeAll
    static void startServers() {
        servers = ReplicatedPostgres.start(false);
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.close();
        }
    }

    private static HikariDataSource pool(String url) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setUsername("postgres");
        pool.setMaximumPoolSize(8);
        return pool;
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    PgQueueAutoConfiguration.class))
            .withBean("dataSource", DataSource.class, () -> pool(servers.primaryJdbcUrl()),
                    (definition) -> definition.setPrimary(true))
            .withBean("replicaDataSource", DataSource.class,
                    () -> replicaStatements.wrap(pool(servers.standbyJdbcUrl())))
            .withPropertyValues("pgqueue.replica.data-source=replicaDataSource", "pgqueue.listener.poll-interval=200ms",
                    "pgqueue.history.enabled=true");
    }

    @Test
    void listingsAreReadFromTheReplicaAndClaimsSendsAndLookupsNeverAre() {
        Map<Integer, Boolean> handled = new ConcurrentHashMap<>();
        runner().withBean(Recorder.class, () -> new Recorder(handled)).run((context) -> {
            assertThat(context).hasNotFailed();
            replicaStatements.reset();
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.sendBatch("reports", IntStream.range(0, 300).mapToObj(Work::new).toList());
            long last = template.send("reports", new Work(300));
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 301);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThat(admin.job(last).queue()).isEqualTo("reports");
            assertThat(replicaStatements.count()).as("statements on the replica while sending, claiming, "
                    + "acknowledging and looking up").isZero();

            JobQuery completed = JobQuery.queue("reports").states(JobState.COMPLETED).limit(500).build();
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.jobs(completed).jobs().size() == 301);
            assertThat(admin.jobs(completed).jobs()).extracting(JobInfo::id).contains(last);
            assertThat(replicaStatements.count()).as("listing statements on the replica").isPositive();

            // the listings keep answering from the replica while the primary drains the next backlog
            template.sendBatch("reports", IntStream.range(1000, 4000).mapToObj(Work::new).toList());
            java.util.concurrent.atomic.AtomicInteger listings = new java.util.concurrent.atomic.AtomicInteger();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
                assertThat(admin.jobs(completed).jobs()).isNotEmpty();
                listings.incrementAndGet();
                return handled.size() == 3301;
            });
            assertThat(listings.get()).isGreaterThan(1);

            List<DatabaseStatus> databases = admin.databases();
            assertThat(databases).singleElement().satisfies((database) -> {
                assertThat(database.name()).isEqualTo("default");
                assertThat(database.up()).isTrue();
                assertThat(database.replicaLag()).isNotNull();
            });
        });
    }

    static class Recorder {

        private final Map<Integer, Boolean> handled;

        Recorder(Map<Integer, Boolean> handled) {
            this.handled = handled;
        }

        @QueueListener(queue = "reports", concurrency = "4", batchSize = "20")
        void report(Work work) {
            handled.put(work.n(), true);
        }
    }
}
