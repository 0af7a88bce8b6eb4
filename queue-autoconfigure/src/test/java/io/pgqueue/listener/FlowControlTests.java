package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.pgqueue.JobRequest;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cluster-wide caps, per-key FIFO groups, rate limits and deferred batches, across several contexts.
 */
class FlowControlTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FlowControlTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.poll-interval=50ms");

    private final Jobs jobs = new Jobs(database.dataSource());

    record Task(String group, int n) {
    }

    /** Simulated work: the handler holds its job this long. */
    private static void work(Duration duration) {
        LockSupport.parkNanos(duration.toNanos());
    }

    static class CappedHandler {

        final AtomicInteger running = new AtomicInteger();

        final AtomicInteger maxRunning = new AtomicInteger();

        final AtomicInteger done = new AtomicInteger();

        @QueueListener(queue = "capped", concurrency = "4", batchSize = "4")
        void handle(Task task) {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            work(Duration.ofMillis(30));
            running.decrementAndGet();
            done.incrementAndGet();
        }
    }

    @Test
    void maxRunningCapsTheQueueAcrossThreeContexts() {
        CappedHandler handler = new CappedHandler();
        ApplicationContextRunner capped = runner.withPropertyValues("pgqueue.queues.capped.max-running=2")
            .withBean(CappedHandler.class, () -> handler);
        List<Long> sampledRunning = new CopyOnWriteArrayList<>();
        capped.run((a) -> capped.run((b) -> capped.run((c) -> {
            a.getBean(QueueTemplate.class).sendBatch("capped", IntStream.range(0, 40).mapToObj((n) -> new Task("", n))
                .toList());
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                sampledRunning.add(jobs.count("capped", "running"));
                return handler.done.get() == 40;
            });
        })));

        assertThat(handler.maxRunning).hasValueLessThanOrEqualTo(2);
        assertThat(handler.maxRunning).hasValue(2);
        assertThat(sampledRunning).isNotEmpty().allMatch((running) -> running <= 2);
        assertThat(jobs.count("capped")).isZero();
    }

    static class GroupHandler {

        final Map<String, AtomicBoolean> busy = new ConcurrentHashMap<>();

        final Map<String, List<Integer>> order = new ConcurrentHashMap<>();

        final List<String> violations = new CopyOnWriteArrayList<>();

        final AtomicInteger ungroupedRunning = new AtomicInteger();

        final AtomicInteger ungroupedMax = new AtomicInteger();

        final AtomicInteger done = new AtomicInteger();

        @QueueListener(queue = "grouped", concurrency = "8", batchSize = "8")
        void handle(Task task) {
            if (task.group().isEmpty()) {
                ungroupedMax.accumulateAndGet(ungroupedRunning.incrementAndGet(), Math::max);
                work(Duration.ofMillis(20));
                ungroupedRunning.decrementAndGet();
            }
            else {
                if (!busy.computeIfAbsent(task.group(), (g) -> new AtomicBoolean()).compareAndSet(false, true)) {
                    violations.add("two jobs of " + task.group() + " at once");
                }
                order.computeIfAbsent(task.group(), (g) -> new CopyOnWriteArrayList<>()).add(task.n());
                work(Duration.ofMillis(1));
                busy.get(task.group()).set(false);
            }
            done.incrementAndGet();
        }
    }

    @Test
    void groupedJobsRunOneAtATimeInOrderWhileUngroupedOnesRunInParallel() {
        GroupHandler handler = new GroupHandler();
        ApplicationContextRunner grouped = runner.withBean(GroupHandler.class, () -> handler);
        grouped.run((a) -> grouped.run((b) -> {
            List<JobRequest> requests = new ArrayList<>();
            for (int n = 0; n < 100; n++) {
                for (String group : List.of("g1", "g2", "g3")) {
                    requests.add(JobRequest.of(new Task(group, n), SendOptions.builder().groupKey(group).build()));
                }
                if (n % 2 == 0) {
                    requests.add(JobRequest.of(new Task("", n), SendOptions.defaults()));
                }
            }
            a.getBean(QueueTemplate.class).sendBatch("grouped", requests);
            await().atMost(Duration.ofSeconds(60)).until(() -> handler.done.get() == 350);
        }));

        assertThat(handler.violations).isEmpty();
        for (String group : List.of("g1", "g2", "g3")) {
            assertThat(handler.order.get(group)).as(group).containsExactlyElementsOf(
                    IntStream.range(0, 100).boxed().toList());
        }
        assertThat(handler.ungroupedMax).hasValueGreaterThan(1);
    }

    static class FailingFirstInGroup {

        final List<Integer> order = new CopyOnWriteArrayList<>();

        final AtomicBoolean failedOnce = new AtomicBoolean();

        @QueueListener(queue = "strict-group", concurrency = "4")
        void handle(Task task) {
            if (task.n() == 0 && failedOnce.compareAndSet(false, true)) {
                throw new IllegalStateException("first attempt of job 0 fails");
            }
            order.add(task.n());
        }
    }

    @Test
    void aFailedJobHoldsItsGroupUntilItsRetrySucceeds() {
        assertThat(handledOrderOfOneGroup("pgqueue.queues.strict-group.backoff.initial=300ms"))
            .containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void withSkipAFailedJobLetsTheRestOfItsGroupRun() {
        assertThat(handledOrderOfOneGroup("pgqueue.queues.strict-group.backoff.initial=2s",
                "pgqueue.queues.strict-group.group-failure=skip"))
            .containsExactly(1, 2, 3, 4, 0);
    }

    /** Sends jobs 0..4 in one group, the first failing once, and returns the order they were handled in. */
    private List<Integer> handledOrderOfOneGroup(String... properties) {
        FailingFirstInGroup handler = new FailingFirstInGroup();
        runner.withPropertyValues(properties)
            .withBean(FailingFirstInGroup.class, () -> handler)
            .run((context) -> {
                context.getBean(QueueTemplate.class).sendBatch("strict-group", IntStream.range(0, 5)
                    .mapToObj((n) -> JobRequest.of(new Task("g", n), SendOptions.builder().groupKey("g").build()))
                    .toList());
                await().atMost(Duration.ofSeconds(10)).until(() -> handler.order.size() == 5);
            });
        return handler.order;
    }

    static class RateHandler {

        final List<Instant> claimedAt = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "limited", concurrency = "8", batchSize = "10")
        void handle(Task task, JobContext job) {
            claimedAt.add(job.claimedAt());
        }
    }

    @Test
    void rateLimitCapsStartsPerWindowAcrossTwoContexts() {
        RateHandler handler = new RateHandler();
        ApplicationContextRunner limited = runner.withPropertyValues("pgqueue.queues.limited.rate=20/1s")
            .withBean(RateHandler.class, () -> handler);
        limited.run((a) -> limited.run((b) -> {
            a.getBean(QueueTemplate.class).sendBatch("limited", IntStream.range(0, 100).mapToObj((n) -> new Task("", n))
                .toList());
            await().atMost(Duration.ofSeconds(15)).until(() -> handler.claimedAt.size() == 100);
        }));

        // windows are aligned to the epoch on the database clock, as claimedAt is
        Map<Long, Integer> perWindow = new TreeMap<>();
        handler.claimedAt.forEach((at) -> perWindow.merge(at.toEpochMilli() / 1000, 1, Integer::sum));
        assertThat(perWindow.values()).allMatch((count) -> count <= 20);
        assertThat(perWindow).hasSizeGreaterThanOrEqualTo(5);
    }

    static class BucketHandler {

        final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "buckets", batchSize = "100", concurrency = "1")
        void handle(List<Task> batch) {
            batchSizes.add(batch.size());
        }
    }

    @Test
    void jobsSentToOneBucketTimeArriveTogetherAtABatchListener() {
        BucketHandler handler = new BucketHandler();
        runner.withBean(BucketHandler.class, () -> handler).run((context) -> {
            Instant bucket = Instant.now().plusSeconds(1);
            QueueTemplate template = context.getBean(QueueTemplate.class);
            for (int n = 0; n < 30; n++) {
                template.send("buckets", new Task("", n), SendOptions.builder().runAt(bucket).build());
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !handler.batchSizes.isEmpty());
        });

        assertThat(handler.batchSizes).containsExactly(30);
    }
}
