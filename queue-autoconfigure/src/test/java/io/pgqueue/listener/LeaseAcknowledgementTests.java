package io.pgqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.pgqueue.QueueTemplate;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.batch.Batch;
import io.pgqueue.batch.BatchOperations;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A transaction that adds members to a batch holds the batch's shards until it commits, and the acknowledgement of
 * an earlier member of that batch waits for them. Plain jobs' acknowledgements do not wait behind it, and the
 * waiting member keeps its lease until its acknowledgement commits: no other node rescues and runs it again.
 */
class LeaseAcknowledgementTests {

    private static final TestDatabase database = TestPostgres.createDatabase(LeaseAcknowledgementTests.class);

    /** Lease 2 s, node timeout 1 s: a lease not renewed is rescued within about three seconds. */
    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withBean(Handler.class);

    private final Jobs jobs = new Jobs(database.dataSource());

    static class Handler {

        final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        final CountDownLatch memberMayFinish = new CountDownLatch(1);

        final CountDownLatch otherMayFinish = new CountDownLatch(1);

        @QueueListener(queue = "ack-lanes", concurrency = "4")
        void handle(String payload) throws InterruptedException {
            runs.computeIfAbsent(payload, (key) -> new AtomicInteger()).incrementAndGet();
            if (payload.equals("member")) {
                memberMayFinish.await(20, TimeUnit.SECONDS);
            }
            if (payload.equals("other batch's member")) {
                otherMayFinish.await(20, TimeUnit.SECONDS);
            }
        }

        int runs(String payload) {
            AtomicInteger count = runs.get(payload);
            return (count != null) ? count.get() : 0;
        }
    }

    @Test
    void anAcknowledgementWaitingForABatchsShardsHoldsUpNoOtherJobAndKeepsItsLease() throws Exception {
        runner.run((context) -> {
            Handler handler = context.getBean(Handler.class);
            BatchOperations batches = context.getBean(BatchOperations.class);
            QueueTemplate template = context.getBean(QueueTemplate.class);
            long batch = batches.open(Batch.builder("held").build());
            batches.add(batch, "ack-lanes", "member");
            long otherBatch = batches.open(Batch.builder("other").build());
            batches.add(otherBatch, "ack-lanes", "other batch's member");
            await().atMost(Duration.ofSeconds(10))
                .until(() -> handler.runs("member") == 1 && handler.runs("other batch's member") == 1);

            // another transaction adds members (to a queue nobody listens to) and stays open past the lease
            CountDownLatch adding = new CountDownLatch(1);
            CountDownLatch commit = new CountDownLatch(1);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            CompletableFuture<Void> adder = CompletableFuture.runAsync(() -> transaction.executeWithoutResult((status) -> {
                batches.addAll(batch, "ack-lanes-later", IntStream.range(0, 64).mapToObj((i) -> "later " + i).toList());
                adding.countDown();
                try {
                    commit.await(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }));
            try {
                assertThat(adding.await(10, TimeUnit.SECONDS)).isTrue();
                // the member finishes: its acknowledgement waits for the adding transaction's locks
                handler.memberMayFinish.countDown();
                // a member of another batch finishes after it: its acknowledgement waits behind the first one
                await().atMost(Duration.ofSeconds(5)).until(() -> jobs.jdbc().queryForObject(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = "
                        + "current_database()", Long.class) > 0);
                handler.otherMayFinish.countDown();
                List<Long> plain = template.sendBatch("ack-lanes", IntStream.range(0, 20).mapToObj((i) -> "plain " + i)
                    .toList()).jobIds();
                await().atMost(Duration.ofSeconds(5)).until(() -> jobs.jdbc().queryForObject(
                        "SELECT count(*) FROM pgqueue.job WHERE id = ANY(?)", Long.class,
                        (Object) plain.toArray(Long[]::new)) == 0);
                assertThat(jobs.count("ack-lanes")).as("the members, their acknowledgements waiting").isEqualTo(2);

                // well past the lease and the node timeout: both members are still this node's, not rescued
                await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(7))
                    .until(() -> handler.runs("member") == 1 && handler.runs("other batch's member") == 1
                            && jobs.count("ack-lanes") == 2);
            }
            finally {
                commit.countDown();
            }
            adder.get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.count("ack-lanes") == 0);
            assertThat(handler.runs).hasSize(22);
            assertThat(handler.runs).allSatisfy((payload, count) -> assertThat(count.get()).as(payload).isEqualTo(1));
        });
    }
}
