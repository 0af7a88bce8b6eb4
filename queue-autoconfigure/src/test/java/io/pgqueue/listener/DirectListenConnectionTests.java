package io.pgqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.internal.wakeup.Wakeups;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.PgBouncer;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Behind a real PgBouncer in transaction pooling mode, which cannot carry LISTEN: with
 * {@code pgqueue.listener.notify-url} the one LISTEN connection goes straight to PostgreSQL while every other
 * statement goes through the pooler, and a listener is woken by another application's send in milliseconds
 * instead of its poll interval (30 s here); killed, the connection comes back and finds what was sent meanwhile.
 * Without it, the listener says that it hears nothing; a wrong one fails startup naming the property.
 */
@ExtendWith(OutputCaptureExtension.class)
class DirectListenConnectionTests {

    private static final TestDatabase database = TestPostgres.createDatabase(DirectListenConnectionTests.class);

    private static final TestDatabase otherDatabase = TestPostgres.createDatabase("DirectListenConnectionOther");

    private static final int PICKUPS = 100;

    private static PgBouncer bouncer;

    private final JdbcTemplate direct = new JdbcTemplate(database.dataSource());

    record Ping(long sentNanos) {
    }

    /** Records when each job's handler started, against when its send returned. */
    static class PickupClock {

        final BlockingQueue<Long> pickupNanos = new LinkedBlockingQueue<>();

        @QueueListener(queue = "pooled")
        void handle(Ping ping) {
            pickupNanos.add(System.nanoTime() - ping.sentNanos());
        }

        Duration next() throws InterruptedException {
            Long nanos = pickupNanos.poll(20, TimeUnit.SECONDS);
            assertThat(nanos).as("a job picked up").isNotNull();
            return Duration.ofNanos(nanos);
        }
    }

    @BeforeAll
    static void startPgBouncer() {
        bouncer = PgBouncer.start(database, 4);
    }

    @AfterAll
    static void stopPgBouncer() {
        if (bouncer != null) {
            bouncer.close();
        }
    }

    /** An application whose DataSource goes through PgBouncer, with a poll interval no test waits for. */
    private ApplicationContextRunner throughPgBouncer() {
        return QueueContextRunners.on(database)
            .withPropertyValues("spring.datasource.url=" + bouncer.jdbcUrl(), "pgqueue.listener.poll-interval=30s",
                    "pgqueue.maintenance.enabled=false", "pgqueue.scheduler.enabled=false");
    }

    @Test
    void behindPgBouncerTheDirectConnectionWakesAListenerOfAnotherApplicationAsFastAsWithoutThePooler() {
        // alternating rounds, so that what the machine does meanwhile falls on both
        for (int round = 1; round <= 3; round++) {
            List<Duration> pooled = pickups(
                    throughPgBouncer().withPropertyValues("pgqueue.listener.notify-url=" + database.jdbcUrl()),
                    throughPgBouncer());
            List<Duration> unpooled = pickups(QueueContextRunners.on(database).withPropertyValues(
                    "pgqueue.listener.poll-interval=30s", "pgqueue.maintenance.enabled=false",
                    "pgqueue.scheduler.enabled=false"), QueueContextRunners.on(database));
            System.out.printf("round %d, pickup from another application, %d sends: behind PgBouncer with notify-url "
                    + "p50 %s p99 %s max %s; direct p50 %s p99 %s max %s; p99 ratio %.2f%n", round, PICKUPS,
                    percentile(pooled, 50), percentile(pooled, 99), percentile(pooled, 100), percentile(unpooled, 50),
                    percentile(unpooled, 99), percentile(unpooled, 100),
                    percentile(pooled, 99).toNanos() / (double) percentile(unpooled, 99).toNanos());
            // the poll interval is 30 s: each of these pickups was a NOTIFY's work
            assertThat(percentile(pooled, 100)).isLessThan(Duration.ofSeconds(5));
        }
    }

    /** Sends one job at a time from a second application and returns how long each took to start. */
    private List<Duration> pickups(ApplicationContextRunner listening, ApplicationContextRunner publishing) {
        PickupClock clock = new PickupClock();
        List<Duration> pickups = new ArrayList<>();
        listening.withBean(PickupClock.class, () -> clock).run((listener) -> {
            assertThat(listener).hasNotFailed();
            await().atMost(Duration.ofSeconds(10)).until(listener.getBean(Wakeups.class)::isListening);
            // no debounce: each send's own NOTIFY, not a trailing one 10 ms later, is measured
            publishing.withPropertyValues("pgqueue.listener.auto-startup=false", "pgqueue.listener.notify-debounce=0")
                .run((publisher) -> {
                QueueTemplate template = publisher.getBean(QueueTemplate.class);
                // the first claim of the listener came back empty: it now waits out its 30 s poll interval
                template.send("pooled", new Ping(System.nanoTime()));
                clock.next();
                for (int i = 0; i < PICKUPS; i++) {
                    template.send("pooled", new Ping(System.nanoTime()));
                    pickups.add(clock.next());
                }
            });
        });
        return pickups;
    }

    @Test
    void theListenConnectionGoesToPostgresDirectlyAndComesBackAfterItIsKilled() {
        PickupClock clock = new PickupClock();
        throughPgBouncer().withPropertyValues("pgqueue.listener.notify-url=" + database.jdbcUrl())
            .withBean(PickupClock.class, () -> clock)
            .run((listener) -> {
                Wakeups wakeups = listener.getBean(Wakeups.class);
                await().atMost(Duration.ofSeconds(10)).until(wakeups::isListening);
                Integer pid = listenBackend();
                assertThat(pid).as("a direct connection named pgqueue-listen").isNotNull();
                assertThat(direct.queryForObject("SELECT query FROM pg_stat_activity WHERE pid = ?", String.class, pid))
                    .startsWith("LISTEN ");
                throughPgBouncer().withPropertyValues("pgqueue.listener.auto-startup=false").run((publisher) -> {
                    QueueTemplate template = publisher.getBean(QueueTemplate.class);
                    template.send("pooled", new Ping(System.nanoTime()));
                    clock.next();

                    long killed = System.nanoTime();
                    direct.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, pid);
                    // sent while the connection is gone: its NOTIFY is lost, the reconnect's catch-up finds it
                    template.send("pooled", new Ping(System.nanoTime()));
                    assertThat(clock.next()).as("a job sent while LISTEN was down").isLessThan(Duration.ofSeconds(5));
                    await().atMost(Duration.ofSeconds(5)).until(() -> {
                        Integer again = listenBackend();
                        return again != null && !again.equals(pid) && wakeups.isListening();
                    });
                    System.out.printf("LISTEN connection back %d ms after pg_terminate_backend%n",
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed));

                    template.send("pooled", new Ping(System.nanoTime()));
                    assertThat(clock.next()).as("a job sent after the reconnect").isLessThan(Duration.ofSeconds(5));
                });
            });
    }

    @Test
    void behindPgBouncerACancellationFromAnotherApplicationArrivesOnTheDirectConnection() {
        NotifyCancelTests.Blocking blocking = new NotifyCancelTests.Blocking();
        // a heartbeat of 5 s (the default) would pass the request on too, only later
        throughPgBouncer().withPropertyValues("pgqueue.listener.notify-url=" + database.jdbcUrl())
            .withBean(NotifyCancelTests.Blocking.class, () -> blocking)
            .run((worker) -> throughPgBouncer().withPropertyValues("pgqueue.listener.auto-startup=false")
                .run((operator) -> {
                    await().atMost(Duration.ofSeconds(10)).until(worker.getBean(Wakeups.class)::isListening);
                    long id = operator.getBean(QueueTemplate.class).send("blocking", new NotifyCancelTests.Work(1));
                    assertThat(blocking.started.poll(10, TimeUnit.SECONDS)).isEqualTo(id);
                    long requested = System.nanoTime();
                    assertThat(operator.getBean(io.pgqueue.admin.QueueAdmin.class).cancel(id))
                        .isEqualTo(io.pgqueue.model.CancelResult.CANCEL_REQUESTED);
                    Long interrupted = blocking.interruptedAt.poll(10, TimeUnit.SECONDS);
                    assertThat(interrupted).as("the handler interrupted").isNotNull();
                    Duration latency = Duration.ofNanos(interrupted - requested);
                    System.out.println("cancel() behind PgBouncer to interruption: " + latency.toMillis() + " ms");
                    assertThat(latency).as("by NOTIFY on the direct connection, not the 5 s heartbeat")
                        .isLessThan(Duration.ofSeconds(2));
                }));
    }

    private Integer listenBackend() {
        List<Integer> pids = direct.queryForList(
                "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgqueue-listen' AND datname = current_database()",
                Integer.class);
        return pids.isEmpty() ? null : pids.get(0);
    }

    @Test
    void withoutADirectConnectionBehindPgBouncerTheListenerSaysThatItHearsNothing(CapturedOutput output) {
        throughPgBouncer().withBean(PickupClock.class, PickupClock::new).run((listener) -> {
            assertThat(listener).hasNotFailed();
            await().atMost(Duration.ofSeconds(15))
                .until(() -> output.getAll().contains("did not receive a NOTIFY sent through the application's DataSource"));
            assertThat(output.getAll()).contains("set pgqueue.listener.notify-url to a direct connection");
        });
    }

    @Test
    void withoutAPoolerTheListenerRaisesNoAlarm(CapturedOutput output) throws Exception {
        PickupClock clock = new PickupClock();
        QueueContextRunners.on(database).withBean(PickupClock.class, () -> clock).run((listener) -> {
            await().atMost(Duration.ofSeconds(10)).until(listener.getBean(Wakeups.class)::isListening);
            // the probe's round trip, then one job sent and handled: the probe had its answer by then
            listener.getBean(QueueTemplate.class).send("pooled", new Ping(System.nanoTime()));
            clock.next();
        });
        assertThat(output.getAll()).doesNotContain("did not receive a NOTIFY");
    }

    @Test
    void aNotifyUrlThroughThePoolerItselfFailsStartupNamingTheProperty() {
        throughPgBouncer().withPropertyValues("pgqueue.listener.notify-url=" + bouncer.jdbcUrl())
            .run((context) -> assertNotifyUrlRefused(context.getStartupFailure(), "did not arrive on it"));
    }

    @Test
    void aNotifyUrlOfAnotherDatabaseFailsStartupNamingTheProperty() {
        throughPgBouncer().withPropertyValues("pgqueue.listener.notify-url=" + otherDatabase.jdbcUrl())
            .run((context) -> assertNotifyUrlRefused(context.getStartupFailure(), "did not arrive on it"));
    }

    @Test
    void aNotifyUrlThatCannotConnectFailsStartupNamingTheProperty() {
        throughPgBouncer().withPropertyValues("pgqueue.listener.notify-url=jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=2")
            .run((context) -> assertNotifyUrlRefused(context.getStartupFailure(), "cannot LISTEN on it"));
    }

    private static void assertNotifyUrlRefused(Throwable failure, String reason) {
        assertThat(failure).isNotNull();
        InvalidConfigurationPropertyValueException refused = findCause(failure);
        assertThat(refused.getName()).isEqualTo("pgqueue.listener.notify-url");
        assertThat(refused.getReason()).contains(reason);
    }

    private static InvalidConfigurationPropertyValueException findCause(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidConfigurationPropertyValueException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("no InvalidConfigurationPropertyValueException in " + failure, failure);
    }

    @Test
    void aPooledNotifyDataSourceGetsItsConnectionBackListeningToNothing() {
        com.zaxxer.hikari.HikariDataSource listenPool = QueueContextRunners.pool(database);
        listenPool.setMaximumPoolSize(1);
        try (listenPool) {
            QueueContextRunners.on(database)
                .withBean("listenPool", javax.sql.DataSource.class, () -> listenPool, (definition) -> definition.setAutowireCandidate(false))
                .withPropertyValues("pgqueue.listener.notify-data-source=listenPool")
                .withBean(PickupClock.class, PickupClock::new)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    Wakeups wakeups = context.getBean(Wakeups.class);
                    await().atMost(Duration.ofSeconds(10)).until(wakeups::isListening);
                    wakeups.stopListening();
                    // the startup check's and the listener's connection are back in the pool (its only one)
                    assertThat(new JdbcTemplate(listenPool)
                        .queryForObject("SELECT count(*) FROM pg_listening_channels()", Long.class)).isZero();
                });
        }
    }

    @Test
    void contradictoryOrIncompleteNotifySettingsFailStartupNamingTheProperty() {
        ApplicationContextRunner runner = QueueContextRunners.on(database);
        runner.withPropertyValues("pgqueue.listener.notify=false", "pgqueue.listener.notify-url=" + database.jdbcUrl())
            .run((context) -> assertThat(findCause(context.getStartupFailure()).getName())
                .isEqualTo("pgqueue.listener.notify-url"));
        runner.withPropertyValues("pgqueue.listener.notify-url=postgres://localhost/app")
            .run((context) -> assertThat(findCause(context.getStartupFailure()).getReason())
                .contains("PostgreSQL JDBC URL"));
        runner.withPropertyValues("pgqueue.listener.notify-username=app")
            .run((context) -> assertThat(findCause(context.getStartupFailure()).getName())
                .isEqualTo("pgqueue.listener.notify-username"));
        runner.withPropertyValues("pgqueue.listener.notify-data-source=nope")
            .run((context) -> assertThat(findCause(context.getStartupFailure()).getName())
                .isEqualTo("pgqueue.listener.notify-data-source"));
    }

    private static Duration percentile(List<Duration> values, int percentile) {
        List<Duration> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
