package io.pgqueue.schema;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgqueue.internal.schema.QueueSchemaInitializer;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Upgrading a schema whose history holds 5,000,000 rows to the partitioned history: the table becomes the
 * first partition as it is (not rewritten, not copied, its indexes kept), while a node of the previous
 * version goes on writing history rows, each of which waits only for the migration's own short transaction.
 */
class HistoryPartitionMigrationTests {

    private static final TestDatabase database = TestPostgres.createDatabase(HistoryPartitionMigrationTests.class);

    private static final int ROWS = 5_000_000;

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    @Test
    void aLargeHistoryBecomesTheFirstPartitionWithoutBeingCopiedWhileAnOlderNodeKeepsWritingToIt() throws Exception {
        try (HikariDataSource pool = QueueContextRunners.pool(database)) {
            migrate(pool, "8");
            jdbc.execute("INSERT INTO upgraded.job_history (id, queue, payload, attempts, created_at, finished_at) "
                    + "SELECT g, 'q' || (g % 10), jsonb_build_object('n', g), 1, "
                    + "now() - interval '30 days' + g * interval '0.5 second', "
                    + "now() - interval '30 days' + g * interval '0.5 second' + interval '1 second' "
                    + "FROM generate_series(1, " + ROWS + ") AS g");
            jdbc.execute("VACUUM ANALYZE upgraded.job_history");
            Map<String, Object> before = jdbc.queryForMap("SELECT pg_relation_filenode('upgraded.job_history') AS heap, "
                    + "pg_relation_filenode('upgraded.job_history_pkey') AS pkey, "
                    + "pg_relation_filenode('upgraded.job_history_queue_state_idx') AS queue_state");

            // a node of version 8 finishing jobs: one history row per statement, as its acknowledgements write them
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong slowest = new AtomicLong();
            AtomicLong written = new AtomicLong();
            ExecutorService olderNode = Executors.newSingleThreadExecutor();
            Future<?> writing = olderNode.submit(() -> {
                JdbcTemplate node = new JdbcTemplate(pool);
                long id = ROWS + 1;
                while (!stop.get()) {
                    long start = System.nanoTime();
                    node.update("INSERT INTO upgraded.job_history (id, queue, payload, attempts, created_at) "
                            + "VALUES (?, 'q', '{}', 1, now())", id++);
                    slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
                    written.incrementAndGet();
                }
                return null;
            });
            long start = System.nanoTime();
            migrate(pool, null);
            long migration = System.nanoTime() - start;
            long writtenDuringMigration = written.get();
            stop.set(true);
            writing.get(10, TimeUnit.SECONDS);
            olderNode.shutdown();

            Map<String, Object> after = jdbc.queryForMap("SELECT pg_relation_filenode('upgraded.job_history_initial') AS heap, "
                    + "pg_relation_filenode('upgraded.job_history_initial_pkey') AS pkey, "
                    + "pg_relation_filenode('upgraded.job_history_initial_queue_state_idx') AS queue_state");
            assertThat(after).isEqualTo(before);
            assertThat(jdbc.queryForObject("SELECT relkind FROM pg_class WHERE oid = 'upgraded.job_history'::regclass",
                    String.class)).isEqualTo("p");
            // every row the older node wrote, before, during and after the migration, is there once
            assertThat(jdbc.queryForObject("SELECT count(*) FROM upgraded.job_history", Long.class))
                .isEqualTo(ROWS + written.get());
            assertThat(jdbc.queryForObject("SELECT count(DISTINCT id) FROM upgraded.job_history WHERE id > ?",
                    Long.class, ROWS)).isEqualTo(written.get());
            assertThat(jdbc.queryForObject("SELECT count(*) FROM upgraded.job_history WHERE id BETWEEN 1 AND 1000 "
                    + "AND queue = 'q7' AND state = 'completed'", Long.class)).isEqualTo(100);
            System.out.printf("history migration of %,d rows: %d ms; the older node wrote %d rows meanwhile, its "
                    + "slowest insert took %d ms%n", ROWS, TimeUnit.NANOSECONDS.toMillis(migration),
                    writtenDuringMigration, TimeUnit.NANOSECONDS.toMillis(slowest.get()));
            assertThat(writtenDuringMigration).isPositive();
        }
    }

    private static void migrate(DataSource dataSource, String target) throws Exception {
        new QueueSchemaInitializer(dataSource, HistoryPartitionMigrationTests.class.getClassLoader(), "upgraded",
                "pgqueue_schema_history", List.of((configuration) -> {
                    if (target != null) {
                        configuration.target(target);
                    }
                }), Duration.ofSeconds(5), 12).afterPropertiesSet();
    }
}
