package io.pgqueue.listener;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.pgqueue.QueueTemplate;
import io.pgqueue.actuate.PgQueueHealthIndicator;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.config.QueueListenerContainerRegistry;
import io.pgqueue.internal.node.NodeRuntime;
import io.pgqueue.internal.persistence.Cascades;
import io.pgqueue.internal.persistence.ClaimRequest;
import io.pgqueue.internal.persistence.Completion;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LeaseAndRescueTests {

    private static final TestDatabase database = TestPostgres.createDatabase(LeaseAndRescueTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database);

    private final Jobs jobs = new Jobs(database.dataSource());

    record Task(String name) {
    }

    /** A listener that blocks until released, recording which node ran which attempt. */
    static class BlockingHandler {

        final List<String> runs = new CopyOnWriteArrayList<>();

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        private final String name;

        BlockingHandler(String name) {
            this.name = name;
        }

        @QueueListener(queue = "long", concurrency = "1", batchSize = "1")
        void handle(Task task, JobContext job) throws InterruptedException {
            runs.add(name + "#" + job.attempt());
            started.countDown();
            release.await(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void handlerRunningLongerThanItsLeaseKeepsTheJob() {
        BlockingHandler first = new BlockingHandler("first");
        BlockingHandler second = new BlockingHandler("second");
        runner.withBean(BlockingHandler.class, () -> first).run((a) -> {
            long id = a.getBean(QueueTemplate.class).send("long", new Task("slow"));
            assertThat(first.started.await(10, TimeUnit.SECONDS)).isTrue();
            Timestamp firstLease = (Timestamp) jobs.row(id).get("lease_until");

            runner.withBean(BlockingHandler.class, () -> second).run((b) -> {
                // wait until the database clock is past the lease the job was first claimed with
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> jobs.jdbc().queryForObject("SELECT now() > ?", Boolean.class, firstLease));

                Map<String, Object> row = jobs.row(id);
                assertThat(row.get("state")).isEqualTo("running");
                assertThat(row.get("locked_by")).isEqualTo(a.getBean(NodeRuntime.class).identity().id());
                assertThat((Timestamp) row.get("lease_until")).isAfter(firstLease);
                assertThat(second.runs).isEmpty();

                first.release.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("long") == 0);
            });
        });
        assertThat(first.runs).containsExactly("first#1");
        assertThat(second.runs).isEmpty();
    }

    @Test
    void jobsOfANodeThatStopsHeartbeatingAreRescuedAndItsLateAcknowledgementDeletesNothing() {
        BlockingHandler stale = new BlockingHandler("stale");
        BlockingHandler rescuer = new BlockingHandler("rescuer");
        // the stale node's heartbeat stops after it registered, as if its heartbeat thread had frozen
        runner.withPropertyValues("pgqueue.listener.heartbeat-interval=30m", "pgqueue.listener.lease-duration=1h",
                "pgqueue.listener.node-timeout=1h")
            .withBean(BlockingHandler.class, () -> stale)
            .run((a) -> {
            long id = a.getBean(QueueTemplate.class).send("long", new Task("rescue me"));
            assertThat(stale.started.await(10, TimeUnit.SECONDS)).isTrue();
            UUID staleNode = a.getBean(NodeRuntime.class).identity().id();
            long frozenAt = System.nanoTime();

            runner.withBean(BlockingHandler.class, () -> rescuer).run((b) -> {
                assertThat(rescuer.started.await(15, TimeUnit.SECONDS)).isTrue();
                Duration rescueTime = Duration.ofNanos(System.nanoTime() - frozenAt);
                // node-timeout 1s + heartbeat 200ms + poll 200ms, with room for a slow machine
                assertThat(rescueTime).isLessThan(Duration.ofSeconds(5));

                Map<String, Object> row = jobs.row(id);
                UUID rescuerNode = b.getBean(NodeRuntime.class).identity().id();
                assertThat(row.get("locked_by")).isEqualTo(rescuerNode);
                assertThat(row.get("attempts")).isEqualTo(2);

                // the stale node finally tries to acknowledge attempt 1: nothing is deleted
                assertThat(a.getBean(Repositories.class).engine().complete(staleNode,
                        List.of(new Completion(id, 1, null, null, null, Cascades.NONE))))
                    .isZero();
                stale.release.countDown();
                await().atMost(Duration.ofSeconds(5)).until(() -> stale.runs.size() == 1);
                assertThat(jobs.row(id).get("locked_by")).isEqualTo(rescuerNode);

                rescuer.release.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("long") == 0);
            });
        });
        assertThat(stale.runs).containsExactly("stale#1");
        assertThat(rescuer.runs).containsExactly("rescuer#2");
    }

    @Test
    void aNodeWhoseHeartbeatStalledStopsClaimingAndSaysSoInHealth() throws Exception {
        BlockingHandler handler = new BlockingHandler("stalled");
        handler.release.countDown();
        runner.withBean(BlockingHandler.class, () -> handler).run((context) -> {
            UUID node = context.getBean(NodeRuntime.class).identity().id();
            QueueListenerContainerRegistry registry = context.getBean(QueueListenerContainerRegistry.class);
            PgQueueHealthIndicator health = new PgQueueHealthIndicator(context.getBean(QueueAdmin.class), registry, null,
                    Status.OUT_OF_SERVICE);
            // a lock on the node's row stalls its heartbeat statement, as a starved pool or half-open socket would
            try (Connection locker = database.dataSource().getConnection()) {
                locker.setAutoCommit(false);
                try (PreparedStatement lock = locker.prepareStatement("SELECT * FROM pgqueue.node WHERE id = ? FOR UPDATE")) {
                    lock.setObject(1, node);
                    lock.executeQuery().close();
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> health.health().getStatus().equals(Status.DOWN));
                assertThat(registry.isNodeAlive()).isFalse();
                assertThat(health.health().getDetails()).containsKey("heartbeat");

                long id = context.getBean(QueueTemplate.class).send("long", new Task("must wait"));
                await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                    .until(() -> "ready".equals(jobs.row(id).get("state")));
                assertThat(handler.runs).isEmpty();
                locker.rollback();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("long") == 0);
            assertThat(handler.runs).containsExactly("stalled#1");
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void expiredLeaseIsRescuedEvenWhenItsNodeStillBeats() {
        // an idle listener of another queue keeps this node heart-beating (and rescuing) every 200 ms
        runner.withBean(BlockingHandler.class, () -> new BlockingHandler("idle")).run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("orphan", new Task("claimed elsewhere"));
            // claimed by a node that heart-beats (this one) but does not renew the job: e.g. a frozen handler
            UUID node = context.getBean(NodeRuntime.class).identity().id();
            assertThat(context.getBean(Repositories.class).engine()
                .claimLeased(new ClaimRequest("orphan", 1, 5, true, node, 100))
                .jobs()).hasSize(1);

            await().atMost(Duration.ofSeconds(5)).until(() -> "ready".equals(jobs.row(id).get("state")));
            assertThat((String) jobs.row(id).get("last_error")).isEqualTo("Attempt 1 lost: lease expired");
        });
    }
}
