package io.pgqueue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.internal.persistence.Schema;
import io.pgqueue.internal.persistence.SqlFunctionText;
import io.pgqueue.listener.JobContext;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobState;
import io.pgqueue.model.QueueCounts;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code pgqueue.send(...)} enqueues from SQL exactly as QueueTemplate does: the same checks, dedup, delays,
 * priority, counters and NOTIFY; from plain JDBC and from a trigger.
 */
class SqlEnqueueTests {

    private static final TestDatabase database = TestPostgres.createDatabase(SqlEnqueueTests.class);

    /** Polls only once an hour: a job is picked up this fast only because its NOTIFY woke the listener. */
    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.poll-interval=1h");

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    /** Records what arrives, and when. */
    static class Inbox {

        final List<Map<String, Object>> received = new CopyOnWriteArrayList<>();

        final Map<Long, Long> arrivedAt = new ConcurrentHashMap<>();

        @QueueListener(queue = "from-sql")
        void fromSql(Map<String, Object> payload, JobContext job) {
            arrivedAt.put(job.id(), System.nanoTime());
            received.add(payload);
        }

        @QueueListener(queue = "orders")
        void orders(Map<String, Object> order) {
            received.add(order);
        }
    }

    @Test
    void plainJdbcEnqueuesWithExactCountersAndWakesAListenerInMilliseconds() throws Exception {
        Inbox inbox = new Inbox();
        runner.withBean(Inbox.class, () -> inbox).run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            // a client that knows nothing of Spring: a bare JDBC connection
            try (Connection connection = DriverManager.getConnection(database.jdbcUrl(), database.username(),
                    database.password())) {
                long sentAt = System.nanoTime();
                long id = send(connection, "SELECT pgqueue.send('from-sql', '{\"n\": 1}'::jsonb)");
                await().atMost(Duration.ofSeconds(5)).until(() -> inbox.arrivedAt.containsKey(id));
                Duration wakeup = Duration.ofNanos(inbox.arrivedAt.get(id) - sentAt);
                assertThat(wakeup).as("send to handler").isLessThan(Duration.ofMillis(1000));

                long delayed = send(connection, "SELECT pgqueue.send('from-sql', '{\"n\": 2}', p_delay => interval '1 hour', "
                        + "p_priority => 7, p_dedup_key => 'once', p_group_key => 'g', p_max_attempts => 2, "
                        + "p_headers => '{\"source\": \"psql\"}', p_timeout => interval '30 seconds', "
                        + "p_fairness_key => 'tenant-sql')");
                JobInfo job = admin.job(delayed);
                assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
                assertThat(job.priority()).isEqualTo(7);
                assertThat(job.dedupKey()).isEqualTo("once");
                assertThat(job.groupKey()).isEqualTo("g");
                assertThat(job.maxAttempts()).isEqualTo(2);
                assertThat(job.headers()).isEqualTo(Map.of("source", "psql"));
                assertThat(job.timeoutMillis()).isEqualTo(30_000);
                assertThat(job.fairnessKey()).isEqualTo("tenant-sql");
                try (PreparedStatement duplicate = connection.prepareStatement(
                        "SELECT pgqueue.send('from-sql', '{}', p_dedup_key => 'once')"); ResultSet rows = duplicate.executeQuery()) {
                    rows.next();
                    assertThat(rows.getObject(1)).as("a duplicate returns NULL").isNull();
                }
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> inbox.received.size() == 1);
            QueueCounts counts = admin.queue("from-sql").orElseThrow().counts();
            assertThat(counts.enqueued()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(5))
                .until(() -> admin.queue("from-sql").orElseThrow().counts().completed() == 1);
            assertThat(admin.queue("from-sql").orElseThrow().counts().scheduled()).isEqualTo(1);
            assertThat(admin.reconcile()).as("counter drift").isEmpty();
        });
    }

    @Test
    void aTriggerEnqueuesAJobInTheTransactionOfTheRowThatFiresIt() {
        Inbox inbox = new Inbox();
        runner.withBean(Inbox.class, () -> inbox).run((context) -> {
            jdbc.execute("""
                    CREATE TABLE public.customer_order (id bigint PRIMARY KEY, total numeric NOT NULL);
                    CREATE FUNCTION public.order_placed() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        PERFORM pgqueue.send('orders', jsonb_build_object('id', NEW.id, 'total', NEW.total),
                                             p_dedup_key => 'order-' || NEW.id);
                        RETURN NEW;
                    END $$;
                    CREATE TRIGGER order_placed AFTER INSERT ON public.customer_order
                        FOR EACH ROW EXECUTE FUNCTION public.order_placed();
                    """);
            jdbc.update("INSERT INTO public.customer_order VALUES (1, 99.50)");
            assertThatThrownBy(() -> jdbc.update("INSERT INTO public.customer_order VALUES (1, 10)"))
                .as("a rolled-back insert").hasMessageContaining("duplicate key");

            await().atMost(Duration.ofSeconds(5)).until(() -> inbox.received.size() == 1);
            assertThat(inbox.received).containsExactly(Map.of("id", 1, "total", 99.50));
            QueueCounts counts = context.getBean(QueueAdmin.class).queue("orders").orElseThrow().counts();
            assertThat(counts.enqueued()).as("the rolled-back insert enqueued nothing").isEqualTo(1);
        });
    }

    @Test
    void invalidArgumentsAreRefusedWithTheirReason() {
        runner.run((context) -> {
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT pgqueue.send('no spaces!', '{}')", Long.class))
                .hasMessageContaining("pgqueue.send: invalid queue name 'no spaces!'");
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT pgqueue.send(NULL, '{}')", Long.class))
                .hasMessageContaining("invalid queue name NULL");
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT pgqueue.send('q', NULL)", Long.class))
                .hasMessageContaining("payload must not be NULL");
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT pgqueue.send('q', '{}', p_delay => interval '-1 s')",
                    Long.class)).hasMessageContaining("delay must not be negative");
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT pgqueue.send('q', '{}', p_priority => 40000)", Long.class))
                .hasMessageContaining("priority must be between -32768 and 32767");
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT pgqueue.send('q', '{}', p_max_attempts => 0)", Long.class))
                .hasMessageContaining("max attempts must be at least 1");
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT pgqueue.send('q', '{}', p_headers => '[1]')", Long.class))
                .hasMessageContaining("headers must be a JSON object of string values");
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT pgqueue.send('q', '{}', p_dedup_key => '')", Long.class))
                .hasMessageContaining("dedup, group and fairness keys must have 1 to 512 characters");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'q'", Long.class)).isZero();
        });
    }

    @Test
    void aPayloadLargerThanTheTemplateAcceptsIsRefused() {
        runner.run((context) -> {
            assertThatThrownBy(() -> jdbc.queryForObject(
                    "SELECT pgqueue.send('big', jsonb_build_object('data', repeat('x', 1100000)))", Long.class))
                .hasMessageContaining("larger than 1 MB");
            assertThat(jdbc.queryForObject("SELECT pgqueue.send('big', jsonb_build_object('data', repeat('x', 1000)))",
                    Long.class)).isNotNull();
        });
    }

    @Test
    void aRoleWithExecuteOnTheFunctionAloneEnqueuesAndOthersCannot() {
        // roles belong to the whole server: names of this run's own, dropped at the end
        String suffix = Long.toString(System.nanoTime(), 36);
        String sender = "sql_sender_" + suffix;
        String stranger = "sql_stranger_" + suffix;
        runner.run((context) -> {
            jdbc.execute("CREATE ROLE " + sender);
            jdbc.execute("CREATE ROLE " + stranger);
            try {
                jdbc.execute("GRANT USAGE ON SCHEMA pgqueue TO " + sender + ", " + stranger);
                jdbc.execute("GRANT EXECUTE ON FUNCTION pgqueue.send(text, jsonb, interval, timestamptz, integer, text, "
                        + "text, integer, jsonb, interval, text) TO " + sender);
                try (Connection connection = database.connect();
                        java.sql.Statement statement = connection.createStatement()) {
                    statement.execute("SET ROLE " + sender);
                    assertThat(send(connection, "SELECT pgqueue.send('least-privilege', '{\"n\": 1}')")).isPositive();
                    // the role cannot write the job table itself
                    assertThatThrownBy(() -> statement.execute(
                            "INSERT INTO pgqueue.job (queue, state, payload) VALUES ('least-privilege', 'ready', '{}')"))
                        .hasMessageContaining("permission denied");
                    statement.execute("RESET ROLE");
                    statement.execute("SET ROLE " + stranger);
                    assertThatThrownBy(() -> send(connection, "SELECT pgqueue.send('least-privilege', '{}')"))
                        .hasMessageContaining("permission denied");
                    statement.execute("RESET ROLE");
                }
                assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'least-privilege'",
                        Long.class)).isOne();
            }
            finally {
                for (String role : List.of(sender, stranger)) {
                    jdbc.execute("DROP OWNED BY " + role);
                    jdbc.execute("DROP ROLE " + role);
                }
            }
        });
    }

    @Test
    void theFunctionsChannelAndCounterDeltasAreTheOnesPgqueueGeneratesForItsOwnSends() {
        runner.run((context) -> {
            for (String schema : List.of("pgqueue", "a_schema_name_long_enough_that_the_channel_needs_its_hash_x")) {
                assertThat(jdbc.queryForObject("SELECT pgqueue.notify_channel(?)", String.class, schema))
                    .isEqualTo(new Schema(schema).notifyChannel());
            }
            String body = jdbc.queryForObject("SELECT prosrc FROM pg_proc WHERE proname = 'send' "
                    + "AND pronamespace = 'pgqueue'::regnamespace", String.class);
            assertThat(SqlFunctionText.normalize(body)).contains("/* pgqueue:enqueue */")
                .contains(SqlFunctionText.enqueueDeltas());
        });
    }

    /**
     * The SQL API's contract (docs/other-languages.md): its version, and the signature of {@code send} that version
     * promises. A migration that changes the signature fails here: it must then raise {@code api_version()} (an
     * added parameter at the end: a minor version) and the page with it.
     */
    @Test
    void theSqlApiStatesItsVersionAndKeepsTheSignatureThatVersionPromises() {
        runner.run((context) -> {
            // 1.1 added emit(); send's signature is 1.0's
            assertThat(jdbc.queryForObject("SELECT pgqueue.api_version()", String.class)).isEqualTo("1.1");
            assertThat(jdbc.queryForList("SELECT pg_get_function_arguments(p.oid) FROM pg_proc p "
                    + "WHERE p.proname = 'emit' AND p.pronamespace = 'pgqueue'::regnamespace", String.class))
                .containsExactly("p_key text, p_payload jsonb DEFAULT NULL::jsonb, "
                        + "p_retention interval DEFAULT '7 days'::interval");
            assertThat(jdbc.queryForList("SELECT pg_get_function_arguments(p.oid) FROM pg_proc p "
                    + "WHERE p.proname = 'send' AND p.pronamespace = 'pgqueue'::regnamespace", String.class))
                .containsExactly("p_queue text, p_payload jsonb, p_delay interval DEFAULT NULL::interval, "
                        + "p_run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, "
                        + "p_priority integer DEFAULT 0, p_dedup_key text DEFAULT NULL::text, "
                        + "p_group_key text DEFAULT NULL::text, p_max_attempts integer DEFAULT NULL::integer, "
                        + "p_headers jsonb DEFAULT NULL::jsonb, p_timeout interval DEFAULT NULL::interval, "
                        + "p_fairness_key text DEFAULT NULL::text");
            // named arguments, as the page advises: the call other languages make
            Long id = jdbc.queryForObject("SELECT pgqueue.send(p_queue => 'contract', p_payload => '{\"n\": 1}', "
                    + "p_headers => '{\"traceparent\": \"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}', "
                    + "p_priority => 5, p_delay => interval '0')", Long.class);
            assertThat(jdbc.queryForMap("SELECT state, priority, payload_type, headers->>'traceparent' AS traceparent "
                    + "FROM pgqueue.job WHERE id = ?", id))
                .containsEntry("state", "ready").containsEntry("priority", 5).containsEntry("payload_type", null)
                .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        });
    }

    private static long send(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql); ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
