package io.pgqueue.databases;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import io.pgqueue.QueueTemplate;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.pgqueue.actuate.PgQueueEndpoint;
import io.pgqueue.actuate.PgQueueHealthIndicator;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.batch.InvalidBatchException;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.autoconfigure.PgQueueMetricsAutoConfiguration;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.listener.QueueListenerContainer;
import io.pgqueue.metrics.QueueMetrics;
import io.pgqueue.model.CancelResult;
import io.pgqueue.model.DatabaseStatus;
import io.pgqueue.model.NodeContainer;
import io.pgqueue.model.QueueStats;
import io.pgqueue.model.ScheduleInfo;
import io.pgqueue.schedule.RecurringJob;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.RestartablePostgres;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import io.pgqueue.workflow.InvalidWorkflowException;
import io.pgqueue.workflow.Workflow;
import io.pgqueue.workflow.WorkflowNode;
import io.pgqueue.workflow.WorkflowOperations;
import io.pgqueue.workflow.WorkflowSubmission;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Queues over two real PostgreSQL servers: the application's DataSource (the default database) and a second,
 * restartable server holding the queues "reports" and "exports".
 */
class SeveralDatabasesTests {

    private static final TestDatabase database = TestPostgres.createDatabase(SeveralDatabasesTests.class);

    private static final RestartablePostgres second = RestartablePostgres.start();

    private static final long BLOCK_ONE = 1L << 48;

    /** How long the second server stays down while the default database's queue drains. */
    private static final Duration OUTAGE = Duration.ofSeconds(60);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.databases.reporting.url=" + second.jdbcUrl("postgres"),
                "pgqueue.databases.reporting.username=" + second.username(),
                "pgqueue.databases.reporting.id-block=1", "pgqueue.databases.reporting.connection-timeout=1s",
                "pgqueue.databases.reporting.queues=reports,exports");

    private final Jobs defaultJobs = new Jobs(database.dataSource());

    private final Jobs secondJobs = new Jobs(new DriverManagerDataSource(second.jdbcUrl("postgres"), second.username(),
            second.password()));

    record Work(int n) {
    }

    @AfterAll
    static void stopSecondServer() {
        second.close();
    }

    @BeforeEach
    void emptyQueues() {
        runner.run((context) -> {
            for (Jobs jobs : List.of(defaultJobs, secondJobs)) {
                jobs.jdbc().update("TRUNCATE pgqueue.job, pgqueue.queue_counter_delta, pgqueue.queue_counter, pgqueue.queue_state, "
                        + "pgqueue.workflow, pgqueue.batch, pgqueue.schedule CASCADE");
            }
        });
    }

    @Test
    void eachQueueIsSentToItsOwnDatabaseAndIdsNameTheirDatabase() {
        runner.run((context) -> {
            assertThat(context).hasNotFailed();
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long email = template.send("emails", new Work(1));
            long report = template.send("reports", new Work(2));
            template.sendBatch("exports", List.of(new Work(3), new Work(4)));

            assertThat(defaultJobs.count("emails")).isEqualTo(1);
            assertThat(defaultJobs.count("reports") + defaultJobs.count("exports")).isZero();
            assertThat(secondJobs.count("reports")).isEqualTo(1);
            assertThat(secondJobs.count("exports")).isEqualTo(2);
            assertThat(secondJobs.count("emails")).isZero();
            assertThat(email).isLessThan(BLOCK_ONE);
            assertThat(report).isBetween(BLOCK_ONE, 2 * BLOCK_ONE - 1);

            QueueAdmin admin = context.getBean(QueueAdmin.class);
            assertThat(admin.job(email).queue()).isEqualTo("emails");
            assertThat(admin.job(report).queue()).isEqualTo("reports");
            assertThat(admin.queues()).extracting(QueueStats::queue).contains("emails", "reports", "exports");
            assertThat(admin.queue("exports")).hasValueSatisfying((stats) -> assertThat(stats.counts().ready()).isEqualTo(2));
            assertThat(admin.databases()).extracting(DatabaseStatus::name, DatabaseStatus::up)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("default", true),
                        org.assertj.core.groups.Tuple.tuple("reporting", true));

            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            new QueueMetrics(admin, Duration.ofHours(1)).bindTo(meters);
            assertThat(meters.get("pgqueue.jobs").tags("queue", "exports", "database", "reporting", "state", "ready")
                .gauge().value()).isEqualTo(2);
            assertThat(meters.get("pgqueue.jobs").tags("queue", "emails", "database", "default", "state", "ready")
                .gauge().value()).isEqualTo(1);
            assertThat(meters.get("pgqueue.database.up").tag("database", "reporting").gauge().value()).isEqualTo(1);

            admin.pause("reports");
            assertThat(admin.isPaused("reports")).isTrue();
            assertThat(secondJobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.queue_state WHERE queue = 'reports' "
                    + "AND paused", Long.class)).isEqualTo(1);
            assertThat(admin.cancel(report)).isEqualTo(CancelResult.CANCELLED);
            assertThat(secondJobs.count("reports")).isZero();
        });
    }

    @Test
    void theEndpointSeesAndOperatesTheQueuesOfBothDatabases() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long report = template.send("reports", new Work(1));
            template.send("emails", new Work(2));
            PgQueueEndpoint endpoint = new PgQueueEndpoint(context.getBean(QueueAdmin.class),
                    context.getBean(QueueListenerContainerRegistry.class), Show.NEVER, Set.of());

            assertThat(endpoint.queues().queues()).extracting(PgQueueEndpoint.QueueDescriptor::name)
                .contains("reports", "emails");
            assertThat(endpoint.job(SecurityContext.NONE, "reports", report)).isNotNull();
            assertThat(endpoint.queue(SecurityContext.NONE, "reports", null, null, "ready", null, null, null, null, null,
                    50, null).jobs()).hasSize(1);
        });
    }

    @Test
    void observationsAndMetersOfJobsNameTheirDatabase() {
        ObservationRegistry observations = ObservationRegistry.create();
        List<Observation.Context> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }
        });
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        runner.withPropertyValues("pgqueue.template.observation-enabled=true", "pgqueue.listener.observation-enabled=true")
            .withConfiguration(AutoConfigurations.of(PgQueueMetricsAutoConfiguration.class))
            .withBean(MeterRegistry.class, () -> meters)
            .withBean(ObservationRegistry.class, () -> observations)
            .withBean(Recorder.class, () -> new Recorder(handled))
            .run((context) -> {
                context.getBean(QueueTemplate.class).send("reports", new Work(1));
                context.getBean(QueueTemplate.class).send("emails", new Work(1001));
                await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 2);
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    assertThat(stopped).extracting((observed) -> observed.getName() + " "
                            + observed.getLowCardinalityKeyValue("pgqueue.queue").getValue() + " "
                            + observed.getLowCardinalityKeyValue("pgqueue.database").getValue())
                        .contains("pgqueue.send reports reporting", "pgqueue.send emails default",
                                "pgqueue.process reports reporting", "pgqueue.process emails default");
                    assertThat(meters.get("pgqueue.jobs.completed").tags("queue", "reports", "database", "reporting")
                        .counter().count()).isEqualTo(1);
                    assertThat(meters.get("pgqueue.jobs.completed").tags("queue", "emails", "database", "default")
                        .counter().count()).isEqualTo(1);
                });
            });
    }

    @Test
    void aDatabaseMayBeADataSourceBeanOfTheApplication() {
        QueueContextRunners.fastListeners(database)
            .withBean("dataSource", DataSource.class, () -> QueueContextRunners.pool(database),
                    (definition) -> definition.setPrimary(true))
            .withBean("reportingDataSource", DataSource.class, () -> new DriverManagerDataSource(second.jdbcUrl("postgres"),
                    second.username(), second.password()))
            .withPropertyValues("pgqueue.databases.reporting.data-source=reportingDataSource",
                    "pgqueue.databases.reporting.id-block=1", "pgqueue.databases.reporting.queues=reports")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                long report = context.getBean(QueueTemplate.class).send("reports", new Work(1));
                assertThat(report).isGreaterThanOrEqualTo(BLOCK_ONE);
                assertThat(secondJobs.count("reports")).isEqualTo(1);
                assertThat(defaultJobs.count("reports")).isZero();
            });
    }

    @Test
    void idBlocksSurviveRestartsAndAreNotAppliedTwice() {
        runner.run((context) -> context.getBean(QueueTemplate.class).send("reports", new Work(1)));
        runner.run((context) -> {
            long next = context.getBean(QueueTemplate.class).send("reports", new Work(2));
            assertThat(next).isGreaterThan(BLOCK_ONE + 1).isLessThan(2 * BLOCK_ONE);
        });
    }

    @Test
    void aDatabaseThatHeldJobsOfAnotherBlockFailsStartupNamingTheProperty() {
        runner.run((context) -> context.getBean(QueueTemplate.class).send("reports", new Work(1)));
        runner.withPropertyValues("pgqueue.databases.reporting.id-block=2").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("pgqueue.databases.reporting.id-block")
                .hasMessageContaining("ids outside");
        });
    }

    @Test
    void anUnknownDataSourceBeanFailsStartupNamingTheProperty() {
        QueueContextRunners.fastListeners(database)
            .withPropertyValues("pgqueue.databases.reporting.data-source=reportingPool", "pgqueue.databases.reporting.id-block=2",
                    "pgqueue.databases.reporting.queues=reports")
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("pgqueue.databases.reporting.data-source")
                    .hasMessageContaining("reportingPool")
                    .hasMessageContaining("no bean of that name");
            });
    }

    @Test
    void listenersClaimFromTheirQueuesDatabase() {
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        runner.withBean(Recorder.class, () -> new Recorder(handled)).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.sendBatch("reports", IntStream.range(0, 500).mapToObj(Work::new).toList());
            template.sendBatch("emails", IntStream.range(1000, 1500).mapToObj(Work::new).toList());
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 1000);
            await().atMost(Duration.ofSeconds(10))
                .until(() -> secondJobs.count("reports") + defaultJobs.count("emails") == 0);

            QueueListenerContainerRegistry registry = context.getBean(QueueListenerContainerRegistry.class);
            assertThat(registry.getListenerContainers()).extracting(QueueListenerContainer::queue)
                .containsExactlyInAnyOrder("reports", "emails");
            assertThat(secondJobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.node", Long.class)).isEqualTo(1);
            assertThat(defaultJobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.node", Long.class)).isEqualTo(1);
            assertThat(context.getBean(QueueAdmin.class).reconcile()).isEmpty();
            // this JVM is one node in both databases, listed once with its containers of both
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(context.getBean(QueueAdmin.class).nodes())
                .singleElement()
                .satisfies((node) -> assertThat(node.containers()).extracting(NodeContainer::queue)
                    .containsExactlyInAnyOrder("reports", "emails")));
        });
        assertThat(handled.values()).allMatch((count) -> count.get() == 1);
    }

    @Test
    void aTransactionalListenerRunsInItsQueuesDatabaseTransaction() {
        Map<Integer, AtomicInteger> attempts = new ConcurrentHashMap<>();
        runner.withBean(FailingOnce.class, () -> new FailingOnce(attempts)).run((context) -> {
            context.getBean(QueueTemplate.class).send("exports", new Work(7));
            await().atMost(Duration.ofSeconds(30)).until(() -> secondJobs.count("exports") == 0);
        });
        // the failure rolled back the claim in the second database's transaction: the job ran again
        assertThat(attempts.get(7)).hasValue(2);
    }

    @Test
    void aSendJoinsATransactionOnlyOnItsQueuesDatabase() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            transaction.executeWithoutResult((status) -> {
                template.send("emails", new Work(1));
                status.setRollbackOnly();
            });
            assertThat(defaultJobs.count("emails")).isZero();

            assertThatIllegalStateException()
                .isThrownBy(() -> transaction.executeWithoutResult((status) -> {
                    new JdbcTemplate(database.dataSource()).queryForObject("SELECT 1", Integer.class);
                    template.send("reports", new Work(2));
                }))
                .withMessageContaining("Queue 'reports' lives in database 'reporting'")
                .withMessageContaining("runs on database 'default'");
            assertThat(secondJobs.count("reports")).isZero();

            TransactionTemplate outside = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            outside.setPropagationBehavior(TransactionDefinition.PROPAGATION_NOT_SUPPORTED);
            transaction.executeWithoutResult((status) -> outside
                .executeWithoutResult((inner) -> template.send("reports", new Work(3))));
            assertThat(secondJobs.count("reports")).isEqualTo(1);
        });
    }

    @Test
    void aWorkflowRunsInItsNodesDatabaseAndOneSpanningTwoIsRefused() {
        runner.run((context) -> {
            WorkflowOperations workflows = context.getBean(WorkflowOperations.class);
            WorkflowSubmission submitted = workflows.submit(Workflow.builder("month-end")
                .node(WorkflowNode.of("report", "reports", "m"))
                .node(WorkflowNode.of("export", "exports", "m").after("report"))
                .build());
            assertThat(submitted.id()).isGreaterThanOrEqualTo(BLOCK_ONE);
            assertThat(secondJobs.count("reports")).isEqualTo(1);
            assertThat(secondJobs.count("exports")).isEqualTo(1);
            assertThat(context.getBean(QueueAdmin.class).workflow(submitted.id()))
                .hasValueSatisfying((info) -> assertThat(info.name()).isEqualTo("month-end"));

            assertThatExceptionOfType(InvalidWorkflowException.class)
                .isThrownBy(() -> workflows.submit(Workflow.builder("mixed")
                    .node(WorkflowNode.of("report", "reports", "m"))
                    .node(WorkflowNode.of("mail", "emails", "m").after("report"))
                    .build()))
                .withMessageContaining("queue 'emails', which lives in database 'default'");
            assertThat(secondJobs.count("reports")).isEqualTo(1);
            assertThat(defaultJobs.count("emails")).isZero();
        });
    }

    @Test
    void aBatchLivesInItsCallbacksDatabaseWithItsMembers() {
        runner.run((context) -> {
            BatchOperations batches = context.getBean(BatchOperations.class);
            long batch = batches.open(Batch.builder("nightly").onSuccess("exports").build());
            assertThat(batch).isGreaterThanOrEqualTo(BLOCK_ONE);
            batches.addAll(batch, "reports", List.of(new Work(1), new Work(2)));
            assertThatExceptionOfType(InvalidBatchException.class)
                .isThrownBy(() -> batches.add(batch, "emails", new Work(3)))
                .withMessageContaining("lives in database 'default'");
            batches.seal(batch);
            assertThat(secondJobs.count("reports")).isEqualTo(2);
            assertThat(defaultJobs.count("emails")).isZero();
            assertThat(context.getBean(QueueAdmin.class).batch(batch))
                .hasValueSatisfying((info) -> assertThat(info.name()).isEqualTo("nightly"));
        });
    }

    @Test
    void whileOneDatabaseIsDownTheOthersQueuesKeepDrainingAndNothingIsLost() {
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        runner.withBean(Recorder.class, () -> new Recorder(handled)).run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            PgQueueHealthIndicator health = new PgQueueHealthIndicator(admin,
                    context.getBean(QueueListenerContainerRegistry.class), null, Status.OUT_OF_SERVICE,
                    Duration.ofMinutes(5), Duration.ofMillis(500));
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            QueueMetrics metrics = new QueueMetrics(admin, Duration.ofHours(1));
            metrics.bindTo(meters);
            assertThat(meters.get("pgqueue.database.up").tag("database", "reporting").gauge().value()).isEqualTo(1);
            admin.pause("reports");
            template.sendBatch("reports", IntStream.range(0, 300).mapToObj(Work::new).toList());

            second.stop();
            try {
                // the default database's queue drains round after round while the other server is down
                long downSince = System.nanoTime();
                int sent = 0;
                Duration slowestHealth = Duration.ZERO;
                Set<Object> staleHeartbeats = new HashSet<>();
                while (System.nanoTime() - downSince < OUTAGE.toNanos()) {
                    // a probe answers within its bound throughout the outage (a check reads the stopped server)
                    long healthStarted = System.nanoTime();
                    Health during = health.health();
                    Duration took = Duration.ofNanos(System.nanoTime() - healthStarted);
                    slowestHealth = (took.compareTo(slowestHealth) > 0) ? took : slowestHealth;
                    if (during.getDetails().get("staleHeartbeats") instanceof List<?> stale) {
                        staleHeartbeats.addAll(stale);
                    }
                    int from = 1000 + sent;
                    template.sendBatch("emails", IntStream.range(from, from + 200).mapToObj(Work::new).toList());
                    sent += 200;
                    int expected = sent;
                    await().atMost(Duration.ofSeconds(20))
                        .until(() -> handled.keySet().stream().filter((n) -> n >= 1000).count() == expected);
                }
                assertThat(slowestHealth).as("slowest health call during the outage").isLessThan(Duration.ofMillis(1500));
                // the default database's heartbeat never stopped: only the stopped one's is named
                assertThat(staleHeartbeats).containsExactly("reporting");
                long sendStarted = System.nanoTime();
                assertThatExceptionOfType(RuntimeException.class)
                    .isThrownBy(() -> template.send("reports", new Work(-1)))
                    .withMessageContaining("database 'reporting'");
                assertThat(Duration.ofNanos(System.nanoTime() - sendStarted)).isLessThan(Duration.ofSeconds(10));
                assertThat(admin.databases()).extracting(DatabaseStatus::name, DatabaseStatus::up)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("default", true),
                            org.assertj.core.groups.Tuple.tuple("reporting", false));
                assertThat(admin.queues()).extracting(QueueStats::queue).contains("emails");
                await().atMost(Duration.ofSeconds(10)).until(() -> health.health().getDetails().containsKey("databasesDown"));
                // a refresh reads every database several times, each read of the stopped one waiting for its connection
                // timeout (1 s here): the gauge agrees with health as soon as the database was probed, not after all
                java.util.concurrent.CompletableFuture<Void> refreshing = java.util.concurrent.CompletableFuture
                    .runAsync(metrics::refresh);
                await().atMost(Duration.ofMillis(2500)).until(() -> meters.get("pgqueue.database.up")
                    .tag("database", "reporting").gauge().value() == 0);
                refreshing.get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(meters.get("pgqueue.database.up").tag("database", "default").gauge().value()).isEqualTo(1);
                Health down = health.health();
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat(down.getDetails()).containsEntry("databasesDown", List.of("reporting"));
                assertThat(down.getDetails().get("databases").toString()).contains("default=UP", "reporting=DOWN");
            }
            finally {
                second.startServer();
            }

            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> admin.resume("reports"));
            await().atMost(Duration.ofSeconds(60))
                .until(() -> handled.keySet().stream().filter((n) -> n < 1000).count() == 300);
            await().atMost(Duration.ofSeconds(10))
                .until(() -> secondJobs.count("reports") + defaultJobs.count("emails") == 0);
            assertThat(admin.reconcile()).isEmpty();
            assertThat(admin.databases()).allMatch(DatabaseStatus::up);
            await().atMost(Duration.ofSeconds(10)).until(() -> health.health().getStatus().equals(Status.UP));
            assertThat(health.health().getDetails()).doesNotContainKeys("staleHeartbeats", "heartbeat", "check");
        });
        assertThat(handled.values()).allMatch((count) -> count.get() == 1);
    }

    @Test
    void recurringJobsFireIntoTheirQueuesDatabase() {
        runner.withPropertyValues("pgqueue.schedules.monthly.queue=reports", "pgqueue.schedules.monthly.fixed-rate=1s")
            .withBean(RecurringJob.class, () -> RecurringJob.builder("hourly").queue("exports").fixedRate(Duration.ofSeconds(1))
                .payload(Map.of("kind", "hourly")).build())
            .run((context) -> {
                await().atMost(Duration.ofSeconds(20))
                    .until(() -> secondJobs.count("reports") > 0 && secondJobs.count("exports") > 0);
                assertThat(defaultJobs.count("reports") + defaultJobs.count("exports")).isZero();
                assertThat(secondJobs.jdbc().queryForList("SELECT name FROM pgqueue.schedule ORDER BY name", String.class))
                    .containsExactly("hourly", "monthly");
                QueueAdmin admin = context.getBean(QueueAdmin.class);
                assertThat(admin.schedules()).extracting(ScheduleInfo::name).contains("hourly", "monthly");
                admin.pauseSchedule("monthly");
                assertThat(secondJobs.jdbc().queryForObject("SELECT paused FROM pgqueue.schedule WHERE name = 'monthly'",
                        Boolean.class)).isTrue();
            });
    }

    @Test
    void invalidDatabasesFailStartupNamingTheProperty() {
        assertStartupFails(runner.withPropertyValues("pgqueue.databases.other.url=" + second.jdbcUrl("postgres"),
                "pgqueue.databases.other.id-block=2", "pgqueue.databases.other.queues=reports"),
                "pgqueue.databases.other.queues", "already listed by database 'reporting'");
        assertStartupFails(runner.withPropertyValues("pgqueue.databases.other.url=" + second.jdbcUrl("postgres"),
                "pgqueue.databases.other.queues=audits"), "pgqueue.databases.other.id-block", "from 1 to 32767");
        assertStartupFails(runner.withPropertyValues("pgqueue.databases.other.url=" + second.jdbcUrl("postgres"),
                "pgqueue.databases.other.id-block=1", "pgqueue.databases.other.queues=audits"),
                "pgqueue.databases.other.id-block", "already the id block of database 'reporting'");
        assertStartupFails(runner.withPropertyValues("pgqueue.databases.other.id-block=3",
                "pgqueue.databases.other.queues=audits"), "pgqueue.databases.other.url", "data-source");
    }

    @Test
    void aDatabasesNotifyUrlIsItsListenConnectionAndOneOfAnotherDatabaseFailsStartupNamingTheProperty() {
        Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
        runner.withPropertyValues("pgqueue.databases.reporting.notify-url=" + second.jdbcUrl("postgres"))
            .withBean(Recorder.class, () -> new Recorder(handled))
            .run((context) -> {
                assertThat(context).hasNotFailed();
                await().atMost(Duration.ofSeconds(10)).until(() -> secondJobs.jdbc().queryForObject(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgqueue-listen'", Long.class) == 1);
                context.getBean(QueueTemplate.class).send("reports", new Work(1));
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.containsKey(1));
            });
        // the application's database is not the one the queues "reports" and "exports" live in
        assertStartupFails(runner.withPropertyValues("pgqueue.databases.reporting.notify-url=" + database.jdbcUrl(),
                "pgqueue.databases.reporting.notify-username=" + database.username(),
                "pgqueue.databases.reporting.notify-password=" + database.password()),
                "pgqueue.databases.reporting.notify-url", "did not arrive on it");
    }

    private static void assertStartupFails(ApplicationContextRunner runner, String property, String reason) {
        runner.run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining(property)
                .hasMessageContaining(reason);
        });
    }

    static class Recorder {

        private final Map<Integer, AtomicInteger> handled;

        Recorder(Map<Integer, AtomicInteger> handled) {
            this.handled = handled;
        }

        @QueueListener(queue = "reports", concurrency = "4", batchSize = "20")
        void report(Work work) {
            handled.computeIfAbsent(work.n(), (n) -> new AtomicInteger()).incrementAndGet();
        }

        @QueueListener(queue = "emails", mode = "TRANSACTIONAL", concurrency = "2", batchSize = "20")
        void email(Work work) {
            handled.computeIfAbsent(work.n(), (n) -> new AtomicInteger()).incrementAndGet();
        }
    }

    static class FailingOnce {

        private final Map<Integer, AtomicInteger> attempts;

        FailingOnce(Map<Integer, AtomicInteger> attempts) {
            this.attempts = attempts;
        }

        @QueueListener(queue = "exports", mode = "TRANSACTIONAL")
        void export(Work work) {
            if (attempts.computeIfAbsent(work.n(), (n) -> new AtomicInteger()).incrementAndGet() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }
    }
}
