package io.pgqueue.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.pgqueue.JobRequest;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.store.ClaimedJob;
import io.pgqueue.store.FailureUpdate;
import io.pgqueue.store.ListenerStore;
import io.pgqueue.store.MaintenanceStore;
import io.pgqueue.store.NodeIdentity;
import io.pgqueue.store.NodeStore;
import io.pgqueue.store.QueueCounts;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counters equal COUNT(*) of the job table after any mix of operations from several threads.
 */
class CounterConsistencyTests {

    private static final TestDatabase database = TestPostgres.createDatabase(CounterConsistencyTests.class);

    private static final List<String> QUEUES = List.of("alpha", "beta", "gamma");

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.maintenance.enabled=false");

    private final JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

    @Test
    void randomOperationsFromSeveralThreadsLeaveCountersEqualToCountStar() throws Exception {
        long seed = System.nanoTime();
        runner.run((context) -> {
            int threads = 6;
            ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
            CountDownLatch done = new CountDownLatch(threads);
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    Random random = new Random(seed + t);
                    workers.add(pool.submit(() -> {
                        try {
                            new Operator(context, random).run(150);
                        }
                        finally {
                            done.countDown();
                        }
                        return null;
                    }));
                }
                // fold and promote concurrently with the writers, as the maintenance task does
                Future<?> maintenance = pool.submit(() -> {
                    MaintenanceStore store = context.getBean(MaintenanceStore.class);
                    while (!done.await(20, TimeUnit.MILLISECONDS)) {
                        store.promoteDue(50);
                        store.squeeze();
                    }
                    return null;
                });
                for (Future<?> worker : workers) {
                    worker.get(120, TimeUnit.SECONDS);
                }
                maintenance.get(30, TimeUnit.SECONDS);
            }
            finally {
                pool.shutdownNow();
            }

            context.getBean(MaintenanceStore.class).squeeze();
            assertThat(countersByState(context)).as("counters vs COUNT(*), seed " + seed).isEqualTo(countStar());
            assertThat(context.getBean(QueueAdmin.class).reconcile()).as("drift, seed " + seed).isEmpty();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job", Long.class)).isPositive();
        });
    }

    @Test
    void reconciliationRepairsDriftMadeBehindPgqueuesBack() {
        runner.run((context) -> {
            context.getBean(QueueTemplate.class).sendBatch("drifty", List.of(1, 2, 3));
            jdbc.update("DELETE FROM pgqueue.job WHERE id = (SELECT min(id) FROM pgqueue.job WHERE queue = 'drifty')");

            List<QueueCounts> drift = context.getBean(QueueAdmin.class).reconcile();

            assertThat(drift).singleElement().satisfies((d) -> {
                assertThat(d.queue()).isEqualTo("drifty");
                assertThat(d.ready()).isEqualTo(-1);
            });
            assertThat(context.getBean(QueueAdmin.class).queue("drifty").orElseThrow().counts().ready()).isEqualTo(2);
        });
    }

    @Test
    void concurrentEnqueuesIntoOneQueueDoNotWaitForEachOther() {
        runner.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            CountDownLatch firstSent = new CountDownLatch(1);
            CountDownLatch secondCommitted = new CountDownLatch(1);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> first = pool.submit(() -> transactions.execute((status) -> {
                    template.send("busy", "first");
                    firstSent.countDown();
                    try {
                        // stay open until the second transaction committed: it must not need our locks
                        return secondCommitted.await(10, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }));
                assertThat(firstSent.await(10, TimeUnit.SECONDS)).isTrue();

                transactions.executeWithoutResult((status) -> template.send("busy", "second"));
                secondCommitted.countDown();

                assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
                assertThat(jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = 'busy'", Long.class))
                    .isEqualTo(2);
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    private Map<String, Long> countersByState(ApplicationContext context) {
        Map<String, Long> counts = new TreeMap<>();
        for (QueueStats stats : context.getBean(QueueAdmin.class).queues()) {
            for (String state : QueueCounts.STATES) {
                long count = stats.counts().count(state);
                if (count != 0) {
                    counts.put(stats.queue() + "/" + state, count);
                }
            }
        }
        return counts;
    }

    private Map<String, Long> countStar() {
        Map<String, Long> counts = new TreeMap<>();
        jdbc.query("SELECT queue, state, count(*) AS n FROM pgqueue.job GROUP BY queue, state",
                (rows) -> {
                    counts.put(rows.getString("queue") + "/" + rows.getString("state"), rows.getLong("n"));
                });
        return counts;
    }

    /** One thread's random walk through every operation that changes job states. */
    private static final class Operator {

        private final QueueTemplate template;

        private final ListenerStore listenerStore;

        private final NodeStore nodeStore;

        private final QueueAdmin admin;

        private final Random random;

        private final NodeIdentity node = NodeIdentity.create();

        private final List<ClaimedJob> held = new ArrayList<>();

        Operator(ApplicationContext context, Random random) {
            this.template = context.getBean(QueueTemplate.class);
            this.listenerStore = context.getBean(ListenerStore.class);
            this.nodeStore = context.getBean(NodeStore.class);
            this.admin = context.getBean(QueueAdmin.class);
            this.random = random;
        }

        void run(int steps) {
            nodeStore.heartbeat(node, 60_000, new long[0]);
            for (int i = 0; i < steps; i++) {
                String queue = QUEUES.get(random.nextInt(QUEUES.size()));
                switch (random.nextInt(11)) {
                    case 0 -> template.send(queue, i, options());
                    case 1 -> template.sendBatch(queue, IntStream.range(0, 1 + random.nextInt(20))
                        .mapToObj((n) -> JobRequest.of(n, options()))
                        .toList());
                    case 2, 3 -> held.addAll(listenerStore.claimWithLease(queue, 1 + random.nextInt(5), node.id(),
                            60_000, 3, true).jobs());
                    case 4, 5 -> completeSome();
                    case 6 -> failSome(Duration.ofMillis(random.nextInt(3) * 10L));
                    case 7 -> failSome(null);
                    case 8 -> expireAndRescue(queue);
                    case 9 -> admin.retryAllDead(queue);
                    default -> admin.purgeDead(queue);
                }
            }
            completeSome();
        }

        private SendOptions options() {
            SendOptions.Builder options = SendOptions.builder();
            if (random.nextInt(4) == 0) {
                options.dedupKey("k" + random.nextInt(10));
            }
            if (random.nextInt(4) == 0) {
                options.delay(Duration.ofMillis(random.nextInt(40)));
            }
            if (random.nextInt(5) == 0) {
                options.groupKey("g" + random.nextInt(3));
            }
            return options.build();
        }

        private void completeSome() {
            if (held.isEmpty()) {
                return;
            }
            List<ClaimedJob> done = new ArrayList<>(held.subList(0, 1 + random.nextInt(held.size())));
            held.removeAll(done);
            listenerStore.complete(node.id(), done.stream().mapToLong(ClaimedJob::id).toArray(),
                    done.stream().mapToInt(ClaimedJob::attempt).toArray());
        }

        private void failSome(Duration retryDelay) {
            if (held.isEmpty()) {
                return;
            }
            ClaimedJob job = held.remove(random.nextInt(held.size()));
            listenerStore.failLeased(node.id(), new FailureUpdate(job.id(), job.attempt(), retryDelay, "failed"), 3);
        }

        private void expireAndRescue(String queue) {
            List<ClaimedJob> claimed = listenerStore.claimWithLease(queue, 2, UUID.randomUUID(), 1, 3, true).jobs();
            if (!claimed.isEmpty()) {
                nodeStore.rescue(60_000, 3);
            }
        }
    }
}
