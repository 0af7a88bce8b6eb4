package io.pgqueue.reliability;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.autoconfigure.PgQueueAutoConfiguration;
import io.pgqueue.reliability.CrashWorker.Work;
import io.pgqueue.testsupport.PgBouncer;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Behind a real PgBouncer in transaction pooling mode (four server connections shared by every client): pgqueue
 * migrates, sends and consumes in both modes while a worker is killed, woken by polling alone or by NOTIFY on a
 * direct LISTEN connection beside the pooler; TRANSACTIONAL effects happen exactly
 * once, every job is done, the application's own table and rows stay where it put them, and no server
 * connection is left with a setting, a lock or a LISTEN of pgqueue's.
 */
class PgBouncerTests {

    private static final TestDatabase database = TestPostgres.createDatabase(PgBouncerTests.class);

    private static final int SERVER_CONNECTIONS = 4;

    private static final int JOBS = 1000;

    /** Settings PgBouncer itself sets on a server connection to match each client's startup parameters. */
    private static final Set<String> POOLER_SETTINGS = Set.of("application_name", "client_encoding", "DateStyle",
            "TimeZone", "standard_conforming_strings");

    private final JdbcTemplate direct = new JdbcTemplate(database.dataSource());

    /**
     * How the workers are woken: by polling alone ({@code notify=false}), or by NOTIFY on a direct LISTEN connection
     * to PostgreSQL beside the pooler ({@code notify-url}).
     */
    static List<String> wakeUps() {
        return List.of("pgqueue.listener.notify=false", "pgqueue.listener.notify-url=" + database.jdbcUrl());
    }

    @ParameterizedTest
    @MethodSource("wakeUps")
    void everyJobIsDoneOnceAndNoServerConnectionKeepsPgqueueState(String wakeUp) throws Exception {
        direct.execute("DROP TABLE IF EXISTS public.effect");
        try (PgBouncer bouncer = PgBouncer.start(database, SERVER_CONNECTIONS)) {
            String url = bouncer.jdbcUrl();
            // the first context to start migrates pgqueue's schema through the pooler
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        JacksonAutoConfiguration.class, PgQueueAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url, "spring.datasource.username=" + database.username(),
                        "spring.datasource.password=" + database.password(), wakeUp,
                        "pgqueue.maintenance.enabled=false", "pgqueue.scheduler.enabled=false")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    // the application's own table, created through the pooler after pgqueue migrated
                    new JdbcTemplate(context.getBean(javax.sql.DataSource.class)).execute(CrashWorker.EFFECT_TABLE);
                    QueueTemplate template = context.getBean(QueueTemplate.class);
                    template.sendBatch("crash-tx", IntStream.range(0, JOBS).mapToObj(Work::new).toList());
                    for (int n = 0; n < JOBS; n++) {
                        template.send("crash-lease", new Work(n));
                    }
                });
            assertThat(direct.queryForObject("SELECT to_regclass('public.effect') IS NOT NULL", Boolean.class))
                .as("the application's table is in its own schema").isTrue();

            try (WorkerFleet workers = new WorkerFleet(url, database.username(), database.password(),
                    List.of("--" + wakeUp))) {
                workers.start(2);
                await().atMost(Duration.ofSeconds(90)).until(() -> effects() >= 300);
                workers.killAndReplace(0);
                await().atMost(Duration.ofSeconds(120)).until(() -> remaining() == 0);
                workers.stopGracefully();
            }

            assertThat(serverSessions(url)).as("state left on PgBouncer's server connections")
                .allSatisfy((session) -> assertThat(session).isEqualTo("role=none"));
        }

        // TRANSACTIONAL: exactly once; LEASE: at least once, repeated only for a killed worker's jobs
        assertThat(count("SELECT count(*) FROM effect WHERE queue = 'crash-tx'")).isEqualTo(JOBS);
        assertThat(count("SELECT count(DISTINCT job_id) FROM effect WHERE queue = 'crash-tx'")).isEqualTo(JOBS);
        assertThat(count("SELECT count(DISTINCT job_id) FROM effect WHERE queue = 'crash-lease'")).isEqualTo(JOBS);
        assertThat(count("SELECT count(*) FROM pgqueue.job")).isZero();
        assertThat(direct.queryForObject("SELECT to_regclass('pgqueue.effect') IS NULL", Boolean.class))
            .as("no table of the application's in pgqueue's schema").isTrue();
        assertThat(count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")).isZero();
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
                    PgQueueAutoConfiguration.class))
            .withPropertyValues(database.springProperties())
            .withPropertyValues("pgqueue.listener.auto-startup=false", "pgqueue.maintenance.enabled=false")
            .run((context) -> assertThat(context.getBean(QueueAdmin.class).reconcile()).isEmpty());
    }

    /**
     * What each of PgBouncer's server connections carries: every client holds a transaction open at once, so
     * each runs on its own server connection.
     */
    private List<String> serverSessions(String url) throws Exception {
        PGSimpleDataSource bouncer = new PGSimpleDataSource();
        bouncer.setUrl(url);
        bouncer.setUser(database.username());
        bouncer.setPassword(database.password());
        List<Connection> clients = new ArrayList<>();
        List<String> sessions = new ArrayList<>();
        Set<Integer> backends = new HashSet<>();
        try {
            for (int i = 0; i < SERVER_CONNECTIONS; i++) {
                Connection client = bouncer.getConnection();
                clients.add(client);
                client.setAutoCommit(false);
                try (Statement statement = client.createStatement(); ResultSet row = statement.executeQuery("""
                        SELECT pg_backend_pid(),
                               (SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) FROM pg_settings
                                WHERE source = 'session' AND NOT name = ANY (?::text[])),
                               current_setting('role'),
                               (SELECT count(*) FROM pg_listening_channels()),
                               (SELECT count(*) FROM pg_prepared_statements)
                        """.replace("?", "'{" + String.join(",", POOLER_SETTINGS) + "}'"))) {
                    row.next();
                    backends.add(row.getInt(1));
                    String settings = row.getString(2);
                    sessions.add(((settings != null) ? settings + ", " : "") + "role=" + row.getString(3)
                            + ((row.getLong(4) > 0) ? ", listening" : "")
                            + ((row.getLong(5) > 0) ? ", prepared statements" : ""));
                }
            }
            assertThat(backends).as("one server connection per client").hasSize(SERVER_CONNECTIONS);
            return sessions;
        }
        finally {
            for (Connection client : clients) {
                client.rollback();
                client.close();
            }
        }
    }

    private long effects() {
        return count("SELECT count(*) FROM effect");
    }

    private long remaining() {
        return count("SELECT count(*) FROM pgqueue.job WHERE state <> 'dead'");
    }

    private long count(String sql) {
        Long count = direct.queryForObject(sql, Long.class);
        return (count != null) ? count : 0;
    }
}
