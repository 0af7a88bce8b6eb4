package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.internal.maintenance.QueueMaintenance;
import io.pgqueue.internal.persistence.HistoryRepository.HistoryPartition;
import io.pgqueue.internal.persistence.HistoryRepository.PartitionPlan;
import io.pgqueue.internal.persistence.HistoryRepository.PartitionUpkeep;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The history partitioned by finish time: partitions created ahead, retention by dropping whole partitions,
 * look-ups by id across partitions, and pages that read only the partitions their bounds allow.
 */
class HistoryPartitionTests {

    private static final TestDatabase database = TestPostgres.createDatabase(HistoryPartitionTests.class);

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    /** Each test in a schema of its own: they reshape the partitions. */
    private static final AtomicInteger schemas = new AtomicInteger();

    private final String schema = "history_" + schemas.incrementAndGet();

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.schema.name=" + schema, "pgqueue.history.enabled=true",
                "pgqueue.history.retention=2d", "pgqueue.history.partitions-ahead=3", "pgqueue.retention.interval=1h");

    /** Without maintenance, so that the test alone changes partitions. */
    private final ApplicationContextRunner quiet = runner.withPropertyValues("pgqueue.maintenance.enabled=false");

    private static final PartitionPlan PLAN = new PartitionPlan(Duration.ofDays(1), 3, Duration.ofDays(2),
            Duration.ofHours(1));

    @Test
    void maintenanceCreatesPartitionsAheadOneNodeAtATimeAndLeavesThemWhenAllAreThere() {
        runner.run((context) -> {
            QueueMaintenance maintenance = context.getBean(QueueMaintenance.class);
            HistoryRepository history = context.getBean(Repositories.class).history();
            // maintenance's first pass runs as the node starts
            Instant today = Instant.now().truncatedTo(ChronoUnit.DAYS);
            await().atMost(Duration.ofSeconds(10)).until(() -> history.partitions().stream()
                .anyMatch((partition) -> today.plus(Duration.ofDays(4)).equals(partition.to())));
            List<HistoryPartition> partitions = history.partitions();

            List<String> names = partitions.stream().map(HistoryPartition::name).toList();
            assertThat(names).first().isEqualTo("job_history_initial");
            assertThat(names).last().isEqualTo("job_history_default");
            assertThat(partitions.get(0).from()).isNull();
            // the first partition ends where the migration put its bound, the next UTC midnight; then one a day
            Instant end = partitions.get(0).to();
            for (HistoryPartition partition : partitions.subList(1, partitions.size() - 1)) {
                assertThat(partition.from()).isEqualTo(end);
                assertThat(Duration.between(partition.from(), partition.to())).isEqualTo(Duration.ofDays(1));
                end = partition.to();
            }
            assertThat(end).isAfterOrEqualTo(today.plus(Duration.ofDays(4)));
            assertThat(partitions.get(partitions.size() - 1).isDefault()).isTrue();

            PartitionUpkeep again = maintenance.maintainHistoryPartitions();
            assertThat(again.created()).isZero();
            assertThat(again.dropped()).isZero();
            assertThat(context.getBean(Repositories.class).history().partitions()).hasSameSizeAs(partitions);
        });
    }

    @Test
    void retentionDetachesAndDropsWholePartitionsAndDeletesNoRow() {
        quiet.run((context) -> {
            HistoryRepository history = context.getBean(Repositories.class).history();
            Instant today = Instant.now().truncatedTo(ChronoUnit.DAYS);
            // the history as it looks ten days after the migration: the first partition long past retention,
            // then a partition a day, of which two past retention
            reshapeFirstPartition(today.minus(Duration.ofDays(5)));
            for (int day = 5; day >= 1; day--) {
                Instant from = today.minus(Duration.ofDays(day));
                createPartition(from, from.plus(Duration.ofDays(1)));
            }
            for (int day = 6; day >= 0; day--) {
                finished(1000 + day, "old", today.minus(Duration.ofDays(day)).plus(Duration.ofHours(1)));
            }
            assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema + ".job_history_default", Long.class)).isOne();

            PartitionUpkeep upkeep = history.maintainPartitions(PLAN);

            // the first partition and days -5, -4 and -3 end before now - 2 days; today's range holds a row in the
            // default partition, so it is left there and the three ranges after it are created
            assertThat(upkeep.dropped()).isEqualTo(4);
            assertThat(upkeep.created()).isEqualTo(3);
            assertThat(upkeep.deferred()).isOne();
            assertThat(upkeep.analyzed()).isTrue();
            assertThat(jdbc.queryForList("SELECT id FROM " + schema + ".job_history ORDER BY id", Long.class))
                .containsExactly(1000L, 1001L, 1002L);
            for (String dropped : List.of("initial", day(today, 5), day(today, 4), day(today, 3))) {
                assertThat(jdbc.queryForObject("SELECT to_regclass(?) IS NULL", Boolean.class,
                        schema + ".job_history_" + dropped)).isTrue();
            }
            assertThat(history.partitions().get(0).name()).isEqualTo("job_history_" + day(today, 2));
        });
    }

    @Test
    void aFinishedJobIsFoundByIdWhicheverPartitionHoldsIt() {
        quiet.run((context) -> {
            context.getBean(Repositories.class).history().maintainPartitions(PLAN);
            Instant now = Instant.now();
            finished(2001, "found", now.minus(Duration.ofDays(30)));
            finished(2002, "found", now.plus(Duration.ofDays(2)));
            finished(2003, "found", now.plus(Duration.ofDays(400)));
            QueueAdmin admin = context.getBean(QueueAdmin.class);

            for (long id : new long[] { 2001, 2002, 2003 }) {
                assertThat(admin.job(id).state()).isEqualTo(JobState.COMPLETED);
            }
            assertThat(jdbc.queryForObject("SELECT tableoid::regclass::text FROM " + schema + ".job_history WHERE id = 2003",
                    String.class)).isEqualTo(schema + ".job_history_default");
        });
    }

    @Test
    void aPageFilteredByEnqueueTimeReadsOnlyPartitionsThatEndAfterIt() throws Exception {
        quiet.run((context) -> {
            Instant today = Instant.now().truncatedTo(ChronoUnit.DAYS);
            reshapeFirstPartition(today.minus(Duration.ofDays(3)));
            for (int day = 3; day >= -1; day--) {
                createPartition(today.minus(Duration.ofDays(day)), today.minus(Duration.ofDays(day - 1)));
            }
            JobLookups lookups = new JobLookups(new Schema(schema));
            JobQuery recent = JobQuery.queue("paged").states(JobState.COMPLETED)
                .enqueuedAfter(today.minus(Duration.ofHours(12)))
                .build();
            JobQuery all = JobQuery.queue("paged").states(JobState.COMPLETED).build();

            String recentPlan = plan(lookups, recent);
            String allPlan = plan(lookups, all);

            assertThat(allPlan).contains("job_history_initial", "job_history_" + day(today, 3),
                    "job_history_" + day(today, 1), "job_history_" + day(today, 0), "job_history_default");
            assertThat(recentPlan).doesNotContain("job_history_initial", "job_history_" + day(today, 3),
                    "job_history_" + day(today, 2));
            assertThat(recentPlan).contains("job_history_" + day(today, 1), "job_history_" + day(today, 0));
        });
    }

    private String plan(JobLookups lookups, JobQuery query) throws Exception {
        Sql explained = lookups.matching(query).explained();
        try (Connection connection = database.connect();
                PreparedStatement statement = Jdbc.prepare(connection, explained, (params) -> lookups.bind(params, query));
                ResultSet rows = statement.executeQuery()) {
            List<String> lines = new ArrayList<>();
            while (rows.next()) {
                lines.add(rows.getString(1));
            }
            return String.join("\n", lines);
        }
    }

    /** The first partition re-attached to end at {@code end}, as if the migration had run long ago. */
    private void reshapeFirstPartition(Instant end) {
        jdbc.execute("ALTER TABLE " + schema + ".job_history DETACH PARTITION " + schema + ".job_history_initial");
        jdbc.execute("ALTER TABLE " + schema + ".job_history ATTACH PARTITION " + schema + ".job_history_initial "
                + "FOR VALUES FROM (MINVALUE) TO ('" + end + "')");
    }

    private void createPartition(Instant from, Instant to) {
        String name = JdbcHistoryRepository.partitionName(from, Duration.ofDays(1));
        jdbc.execute("CREATE TABLE " + schema + "." + name + " PARTITION OF " + schema + ".job_history FOR VALUES FROM ('" + from
                + "') TO ('" + to + "')");
    }

    private void finished(long id, String queue, Instant at) {
        jdbc.update("INSERT INTO " + schema + ".job_history (id, queue, payload, attempts, created_at, finished_at) "
                + "VALUES (?, ?, '{}', 1, ?::timestamptz - interval '1 minute', ?::timestamptz)", id, queue,
                at.toString(), at.toString());
    }

    private static String day(Instant today, int daysAgo) {
        return JdbcHistoryRepository.partitionName(today.minus(Duration.ofDays(daysAgo)), Duration.ofDays(1))
            .substring("job_history_".length());
    }
}
