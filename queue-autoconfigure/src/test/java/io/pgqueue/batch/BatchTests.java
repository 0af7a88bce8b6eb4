package io.pgqueue.batch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.internal.node.NodeIdentity;
import io.pgqueue.internal.persistence.ClaimRequest;
import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.internal.persistence.Completion;
import io.pgqueue.internal.persistence.JobEnginePort;
import io.pgqueue.internal.persistence.Repositories;
import io.pgqueue.model.BatchCallbackInfo;
import io.pgqueue.model.BatchEventType;
import io.pgqueue.model.BatchInfo;
import io.pgqueue.model.BatchQuery;
import io.pgqueue.model.BatchState;
import io.pgqueue.model.BulkCancelResult;
import io.pgqueue.model.SendResult;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Batches on a real PostgreSQL: callbacks fire once each, never before the seal, in the transaction of the member
 * change that decides them; a retried dead member can still make a batch succeed; cancelling skips what has not
 * fired; bad input stores nothing; and the last two members of 1,000 batches finishing at the same instant on two
 * nodes fire every callback exactly once.
 */
class BatchTests {

    private static final TestDatabase database = TestPostgres.createDatabase(BatchTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.backoff.initial=1h", "pgqueue.listener.backoff.max=2h");

    private final Jobs jobs = new Jobs(database.dataSource());

    /** Members on a LEASE and a TRANSACTIONAL queue (a member whose payload is "fail" fails), and the callbacks. */
    static class Handlers {

        final Queue<BatchEvent> events = new ConcurrentLinkedQueue<>();

        final Set<Long> failOnce = ConcurrentHashMap.newKeySet();

        final Set<String> mdcBatchIds = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "b-rows", concurrency = "4", maxAttempts = "1")
        void row(String row) {
            String batchId = org.slf4j.MDC.get("pgqueue.batchId");
            if (batchId != null) {
                mdcBatchIds.add(batchId);
            }
            if (row.startsWith("fail")) {
                throw new IllegalStateException("bad row " + row);
            }
        }

        /** The batch ids TRANSACTIONAL members read from their context. */
        final Set<Long> contextBatchIds = ConcurrentHashMap.newKeySet();

        @QueueListener(queue = "b-tx-rows", mode = "TRANSACTIONAL", concurrency = "2", maxAttempts = "1")
        void txRow(String row, io.pgqueue.listener.JobContext context) {
            if (context.batchId() != null) {
                contextBatchIds.add(context.batchId());
            }
            if (row.startsWith("fail")) {
                throw new IllegalStateException("bad row " + row);
            }
        }

        @QueueListener(queue = "b-done")
        void done(BatchEvent event) {
            events.add(event);
        }

        List<BatchEventType> eventsOf(long batchId) {
            return events.stream().filter((e) -> e.batchId() == batchId).map(BatchEvent::event).sorted().toList();
        }
    }

    private static Batch.Builder withAllCallbacks(String name) {
        return Batch.builder(name)
            .onSuccess("b-done")
            .onComplete("b-done")
            .onFirstDeath("b-done")
            .onCannotSucceed("b-done", SendOptions.builder().priority(5).build());
    }

    @Test
    void anImportFiresSuccessAndCompleteOnceAfterTheSealNeverBefore() {
        Handlers handlers = new Handlers();
        runner.withBean(Handlers.class, () -> handlers).run((context) -> {
            BatchOperations batches = context.getBean(BatchOperations.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            long id = batches.open(withAllCallbacks("import-1").property("file", "customers.csv").build());
            // members added over two transactions and both delivery modes; all finish before the seal
            batches.addAll(id, "b-rows", IntStream.range(0, 60).mapToObj((i) -> "row-" + i).toList());
            SendResult one = batches.add(id, "b-tx-rows", "tx-row");
            batches.addAll(id, "b-tx-rows", List.of("tx-1", "tx-2"));
            assertThat(one.created()).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("b-rows") + jobs.count("b-tx-rows") == 0);
            assertThat(admin.batch(id).orElseThrow().state()).isEqualTo(BatchState.OPEN);
            assertThat(jobs.count("b-done")).isZero();
            assertThat(handlers.eventsOf(id)).isEmpty();

            batches.seal(id);
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.eventsOf(id).size() == 2);
            assertThat(handlers.eventsOf(id)).containsExactly(BatchEventType.SUCCESS, BatchEventType.COMPLETE);
            BatchEvent success = handlers.events.stream().filter((e) -> e.batchId() == id).findFirst().orElseThrow();
            assertThat(success.batchName()).isEqualTo("import-1");
            assertThat(success.properties()).containsExactly(Map.entry("file", "customers.csv"));
            BatchInfo info = admin.batch(id).orElseThrow();
            assertThat(info.state()).isEqualTo(BatchState.SUCCEEDED);
            assertThat(info.counts().completed()).isEqualTo(63);
            assertThat(info.counts().total()).isEqualTo(63);
            assertThat(info.finishedAt()).isNotNull();
            assertThat(info.callbacks()).extracting(BatchCallbackInfo::event, BatchCallbackInfo::state)
                .containsExactlyInAnyOrder(tuple(BatchEventType.SUCCESS, "fired"), tuple(BatchEventType.COMPLETE, "fired"),
                        tuple(BatchEventType.FIRST_DEATH, "pending"), tuple(BatchEventType.CANNOT_SUCCEED, "pending"));
            assertThat(handlers.mdcBatchIds).contains(Long.toString(id));
            assertThat(handlers.contextBatchIds).contains(id);
            assertThat(admin.batches(new BatchQuery("import-1", BatchState.SUCCEEDED, null, 10)))
                .extracting(BatchInfo::id).containsExactly(id);
            // sealing again does nothing
            batches.seal(id);
            assertThat(jobs.count("b-done")).isZero();
            assertThat(handlers.eventsOf(id)).hasSize(2);
        });
    }

    @Test
    void aDeathFiresItsCallbacksOnceAndARetriedMemberThatCompletesMakesTheBatchSucceed() {
        Handlers handlers = new Handlers();
        runner.withBean(Handlers.class, () -> handlers).run((context) -> {
            BatchOperations batches = context.getBean(BatchOperations.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            long id = batches.open(withAllCallbacks("deaths").build());
            batches.addAll(id, "b-rows", List.of("ok-1", "fail-a", "ok-2"));
            batches.add(id, "b-tx-rows", "fail-b");
            batches.seal(id);
            // both failures are dead; the first death and the first failure fired once, and complete (all terminal)
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.eventsOf(id).size() == 3);
            assertThat(handlers.eventsOf(id)).containsExactly(BatchEventType.COMPLETE, BatchEventType.FIRST_DEATH,
                    BatchEventType.CANNOT_SUCCEED);
            BatchInfo failed = admin.batch(id).orElseThrow();
            assertThat(failed.state()).isEqualTo(BatchState.FAILED);
            assertThat(failed.counts().dead()).isEqualTo(2);
            assertThat(failed.counts().completed()).isEqualTo(2);

            // the operator mends the rows and retries: the batch runs again, then succeeds; complete stays once
            jobs.jdbc().update("UPDATE pgqueue.job SET payload = '\"mended\"' WHERE batch_id = ? AND state = 'dead'", id);
            admin.retryDead("b-rows", deadMembers(id, "b-rows"));
            admin.retryDead("b-tx-rows", deadMembers(id, "b-tx-rows"));
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.eventsOf(id).size() == 4);
            assertThat(handlers.eventsOf(id)).containsExactly(BatchEventType.SUCCESS, BatchEventType.COMPLETE,
                    BatchEventType.FIRST_DEATH, BatchEventType.CANNOT_SUCCEED);
            BatchInfo succeeded = admin.batch(id).orElseThrow();
            assertThat(succeeded.state()).isEqualTo(BatchState.SUCCEEDED);
            assertThat(succeeded.counts()).satisfies((counts) -> {
                assertThat(counts.completed()).isEqualTo(4);
                assertThat(counts.dead()).isZero();
            });
            assertThat(jobs.jdbc().queryForObject(
                    "SELECT count(*) FROM pgqueue.batch_callback WHERE batch_id = ? AND state = 'fired'", Long.class, id))
                .isEqualTo(4);
        });
    }

    private List<Long> deadMembers(long batchId, String queue) {
        return jobs.jdbc().queryForList("SELECT id FROM pgqueue.job WHERE batch_id = ? AND queue = ? AND state = 'dead'",
                Long.class, batchId, queue);
    }

    @Test
    void cancellingABatchCancelsWhatHasNotRunAndSkipsItsCallbacksButOnCompleteWhenAsked() {
        Handlers handlers = new Handlers();
        runner.withBean(Handlers.class, () -> handlers).run((context) -> {
            BatchOperations batches = context.getBean(BatchOperations.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            SendOptions later = SendOptions.builder().delay(Duration.ofHours(1)).build();
            long quiet = batches.open(withAllCallbacks("cancel-quiet").build());
            batches.addAll(quiet, "b-rows", List.of("a", "b", "c"), later);
            long loud = batches.open(withAllCallbacks("cancel-loud").completeOnCancel(true).build());
            batches.addAll(loud, "b-rows", List.of("a", "b"), later);
            batches.seal(loud);

            BulkCancelResult cancelled = admin.cancelBatch(quiet);
            assertThat(cancelled.cancelled()).isEqualTo(3);
            assertThat(admin.cancelBatch(loud).cancelled()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.eventsOf(loud).size() == 1);
            assertThat(handlers.eventsOf(loud)).containsExactly(BatchEventType.COMPLETE);
            assertThat(jobs.count("b-rows")).isZero();
            BatchInfo info = admin.batch(quiet).orElseThrow();
            assertThat(info.state()).isEqualTo(BatchState.CANCELLED);
            assertThat(info.counts().cancelled()).isEqualTo(3);
            assertThat(info.callbacks()).allSatisfy((callback) -> assertThat(callback.state()).isEqualTo("skipped"));
            assertThat(handlers.eventsOf(quiet)).isEmpty();
            // a finished batch cancels nothing; a cancelled one takes no member
            assertThat(admin.cancelBatch(quiet).cancelled()).isZero();
            assertThatExceptionOfType(InvalidBatchException.class).isThrownBy(() -> batches.add(quiet, "b-rows", "x"))
                .withMessageContaining("cancelled");
        });
    }

    @Test
    void badInputIsRefusedWithAClearErrorAndStoresNothing() {
        runner.withBean(Handlers.class, Handlers::new).run((context) -> {
            BatchOperations batches = context.getBean(BatchOperations.class);
            long rowsBefore = jobs.count("b-rows");
            long batchesBefore = jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.batch", Long.class);
            assertThatExceptionOfType(InvalidBatchException.class)
                .isThrownBy(() -> batches.open(Batch.builder("x").onSuccess("no-such-queue").build()))
                .withMessageContaining("'no-such-queue'").withMessageContaining("nothing knows");
            assertThatExceptionOfType(InvalidBatchException.class)
                .isThrownBy(() -> Batch.builder("x").property("blob", "x".repeat(Batch.MAX_PROPERTIES_BYTES)).build())
                .withMessageContaining("MAX_PROPERTIES_BYTES");
            assertThatExceptionOfType(InvalidBatchException.class)
                .isThrownBy(() -> Batch.builder("x").onSuccess("b-done", SendOptions.builder().dedupKey("k").build()))
                .withMessageContaining("dedup key");
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.batch", Long.class))
                .isEqualTo(batchesBefore);

            long id = batches.open(Batch.builder("sealed").onComplete("b-done").build());
            batches.seal(id);
            assertThatExceptionOfType(InvalidBatchException.class)
                .isThrownBy(() -> batches.addAll(id, "b-rows", List.of("late-1", "late-2")))
                .withMessageContaining("sealed").withMessageContaining("nothing was added");
            assertThatExceptionOfType(InvalidBatchException.class).isThrownBy(() -> batches.add(-1, "b-rows", "x"))
                .withMessageContaining("does not exist");
            assertThatExceptionOfType(InvalidBatchException.class).isThrownBy(() -> batches.seal(-1))
                .withMessageContaining("does not exist");
            assertThat(jobs.count("b-rows")).isEqualTo(rowsBefore);
        });
    }

    @Test
    void openingAddingAndSealingJoinTheCallersTransaction() {
        Handlers handlers = new Handlers();
        runner.withBean(Handlers.class, () -> handlers).run((context) -> {
            BatchOperations batches = context.getBean(BatchOperations.class);
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            TransactionTemplate transaction = new TransactionTemplate(
                    new DataSourceTransactionManager(context.getBean(javax.sql.DataSource.class)));
            List<Long> rolledBack = new ArrayList<>();
            transaction.executeWithoutResult((status) -> {
                long id = batches.open(Batch.builder("rolled-back").onComplete("b-done").build());
                batches.addAll(id, "b-rows", List.of("1", "2"));
                batches.seal(id);
                rolledBack.add(id);
                status.setRollbackOnly();
            });
            assertThat(admin.batch(rolledBack.get(0))).isEmpty();
            assertThat(jobs.jdbc().queryForObject("SELECT count(*) FROM pgqueue.job WHERE batch_id = ?", Long.class,
                    rolledBack.get(0))).isZero();
            long committed = transaction.execute((status) -> {
                long id = batches.open(Batch.builder("committed").onComplete("b-done").build());
                batches.addAll(id, "b-rows", List.of("1", "2"));
                batches.seal(id);
                return id;
            });
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.eventsOf(committed).size() == 1);
        });
    }

    /**
     * The last two members of each of 1,000 batches finish at the same instant, acknowledged by two nodes: every
     * batch fires onSuccess and onComplete exactly once.
     */
    @Test
    void theLastTwoMembersFinishingAtOnceOnTwoNodesFireEachCallbackExactlyOnce() throws Exception {
        // the two nodes here are fake: the application's own node must not judge them gone meanwhile
        runner.withPropertyValues("pgqueue.listener.auto-startup=false", "pgqueue.listener.node-timeout=10m",
                "pgqueue.listener.lease-duration=10m").withBean(Handlers.class, Handlers::new)
            .run((context) -> {
                BatchOperations batches = context.getBean(BatchOperations.class);
                Repositories repositories = context.getBean(Repositories.class);
                JobEnginePort engine = repositories.engine();
                int count = 1_000;
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    long id = batches.open(Batch.builder("race-" + i).onSuccess("b-done").onComplete("b-done").build());
                    batches.addAll(id, "b-race", List.of("first", "second"));
                    batches.seal(id);
                    ids.add(id);
                }
                NodeIdentity[] nodes = { NodeIdentity.create(), NodeIdentity.create() };
                for (NodeIdentity node : nodes) {
                    repositories.nodes().heartbeat(node.id(), node.host(), node.pid(), Duration.ofMinutes(1),
                            new long[0], List.of(), Duration.ofSeconds(10));
                }
                // each node claims one member of every batch
                List<List<ClaimedJob>> claimed = List.of(Collections.synchronizedList(new ArrayList<>()),
                        Collections.synchronizedList(new ArrayList<>()));
                List<ClaimedJob> all = new ArrayList<>();
                while (all.size() < 2 * count) {
                    all.addAll(engine.claimLeased(new ClaimRequest("b-race", 200, 3, true, nodes[0].id(), 60_000)).jobs());
                }
                // hand the two members of each batch to different nodes by re-owning the second one
                for (ClaimedJob job : all) {
                    int owner = (job.id() % 2 == 0) ? 0 : 1;
                    claimed.get(owner).add(job);
                    jobs.jdbc().update("UPDATE pgqueue.job SET locked_by = ? WHERE id = ?", nodes[owner].id(), job.id());
                }
                CyclicBarrier barrier = new CyclicBarrier(2);
                ExecutorService pool = Executors.newFixedThreadPool(2);
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (int owner = 0; owner < 2; owner++) {
                        int n = owner;
                        done.add(pool.submit(() -> {
                            for (long batch : ids) {
                                List<ClaimedJob> mine = claimed.get(n).stream().filter((j) -> batch == j.batchId())
                                    .toList();
                                barrier.await();
                                if (!mine.isEmpty()) {
                                    engine.complete(nodes[n].id(),
                                            mine.stream().map((job) -> Completion.of(job, null)).toList());
                                }
                            }
                            return null;
                        }));
                    }
                    for (Future<?> future : done) {
                        future.get();
                    }
                }
                finally {
                    pool.shutdownNow();
                }
                assertThat(jobs.count("b-race")).isZero();
                assertThat(jobs.jdbc().queryForObject("""
                        SELECT count(*) FROM pgqueue.batch_callback WHERE batch_id = ANY(?) AND state = 'fired'""",
                        Long.class, (Object) ids.toArray(new Long[0]))).isEqualTo(2L * count);
                assertThat(jobs.jdbc().queryForObject("""
                        SELECT count(*) FROM pgqueue.job j JOIN pgqueue.batch_callback k ON k.job_id = j.id
                        WHERE k.batch_id = ANY(?)""", Long.class, (Object) ids.toArray(new Long[0])))
                    .isEqualTo(2L * count);
                assertThat(jobs.count("b-done")).isEqualTo(2L * count);
                QueueAdmin admin = context.getBean(QueueAdmin.class);
                assertThat(ids).allSatisfy((id) -> {
                    BatchInfo info = admin.batch(id).orElseThrow();
                    assertThat(info.state()).isEqualTo(BatchState.SUCCEEDED);
                    assertThat(info.counts().completed()).isEqualTo(2);
                    assertThat(info.callbacks()).allSatisfy((callback) -> assertThat(callback.fired()).isTrue());
                });
            });
    }
}
