package io.pgqueue.fairness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.pgqueue.JobRequest;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import io.pgqueue.model.FairnessKeyInfo;
import io.pgqueue.support.Jobs;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * Fairness inside a queue: weighted, work-conserving shares across keys, per-key caps exact across contexts,
 * pause per key, run-time weights, both delivery modes, and keys that go idle and come back without losing a job.
 */
class FairnessTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FairnessTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.fastListeners(database)
        .withPropertyValues("pgqueue.listener.poll-interval=50ms");

    private final Jobs jobs = new Jobs(database.dataSource());

    record Task(String key, int n) {
    }

    /** Records the key of every job in the order the handlers started them. */
    static class Recorder {

        final List<String> started = new CopyOnWriteArrayList<>();

        final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

        final Map<String, AtomicInteger> maxRunning = new ConcurrentHashMap<>();

        final AtomicInteger allRunning = new AtomicInteger();

        final AtomicInteger allMax = new AtomicInteger();

        final AtomicInteger done = new AtomicInteger();

        void run(Task task, Duration work) {
            started.add(task.key());
            int now = running.computeIfAbsent(task.key(), (k) -> new AtomicInteger()).incrementAndGet();
            maxRunning.computeIfAbsent(task.key(), (k) -> new AtomicInteger()).accumulateAndGet(now, Math::max);
            allMax.accumulateAndGet(allRunning.incrementAndGet(), Math::max);
            LockSupport.parkNanos(work.toNanos());
            allRunning.decrementAndGet();
            running.get(task.key()).decrementAndGet();
            done.incrementAndGet();
        }

        /** Each key's share of the first {@code n} jobs started. */
        Map<String, Double> shares(int n) {
            return started.subList(0, n).stream()
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()))
                .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, (e) -> e.getValue() / (double) n));
        }
    }

    private static List<JobRequest> tasks(String key, int count) {
        List<JobRequest> requests = new ArrayList<>();
        for (int n = 0; n < count; n++) {
            requests.add(JobRequest.of(new Task(key, n), SendOptions.builder().fairnessKey(key).build()));
        }
        return requests;
    }

    /** Interleaves the keys' jobs, as several tenants sending at once would. */
    private static List<JobRequest> interleaved(int perKey, String... keys) {
        List<JobRequest> requests = new ArrayList<>();
        for (int n = 0; n < perKey; n++) {
            for (String key : keys) {
                requests.add(JobRequest.of(new Task(key, n), SendOptions.builder().fairnessKey(key).build()));
            }
        }
        return requests;
    }

    static class SharesHandler {

        final Recorder recorder = new Recorder();

        @QueueListener(queue = "shares", concurrency = "5", batchSize = "5")
        void handle(Task task) {
            recorder.run(task, Duration.ofMillis(2));
        }
    }

    @Test
    void keysReceiveClaimsInProportionToTheirWeights() {
        SharesHandler handler = new SharesHandler();
        ApplicationContextRunner fair = runner
            .withPropertyValues("pgqueue.queues.shares.fairness.weights.a=3", "pgqueue.listener.auto-startup=false")
            .withBean(SharesHandler.class, () -> handler);
        fair.run((context) -> {
            // a backlog of every key first, then the listener: shares under contention from the first claim on
            context.getBean(QueueTemplate.class).sendBatch("shares", interleaved(300, "a", "b", "c"));
            context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).getListenerContainers()
                .forEach(io.pgqueue.listener.QueueListenerContainer::start);
            await().atMost(Duration.ofSeconds(60)).until(() -> handler.recorder.done.get() == 900);
        });

        // while all three keys had a backlog (a, at 60 %, has 300 jobs: 400 starts leave it some)
        Map<String, Double> shares = handler.recorder.shares(400);
        assertThat(shares.get("a")).isCloseTo(0.6, within(0.05));
        assertThat(shares.get("b")).isCloseTo(0.2, within(0.05));
        assertThat(shares.get("c")).isCloseTo(0.2, within(0.05));
        assertThat(jobs.count("shares")).isZero();
    }

    static class LatencyHandler {

        final Recorder recorder = new Recorder();

        final Map<String, Integer> bigDoneWhenStarted = new ConcurrentHashMap<>();

        final AtomicInteger bigDone = new AtomicInteger();

        @QueueListener(queue = "latency", concurrency = "4", batchSize = "4")
        void handle(Task task) {
            if (!task.key().equals("big")) {
                bigDoneWhenStarted.put(task.key() + "/" + task.n(), bigDone.get());
            }
            recorder.run(task, Duration.ofMillis(2));
            if (task.key().equals("big")) {
                bigDone.incrementAndGet();
            }
        }
    }

    @Test
    void smallKeysDoNotWaitBehindOneKeysBacklog() {
        LatencyHandler handler = new LatencyHandler();
        ApplicationContextRunner fair = runner.withPropertyValues("pgqueue.queues.latency.fairness.enabled=true")
            .withBean(LatencyHandler.class, () -> handler);
        fair.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.sendBatch("latency", tasks("big", 3000));
            await().atMost(Duration.ofSeconds(30)).until(() -> handler.bigDone.get() >= 100);
            int bigDoneAtSend = handler.bigDone.get();
            for (int k = 0; k < 10; k++) {
                template.sendBatch("latency", tasks("small-" + k, 2));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> handler.bigDoneWhenStarted.size() == 20);
            // each small key's jobs start within a few claims of their send, not after the big backlog
            assertThat(handler.bigDoneWhenStarted.values()).allSatisfy(
                    (bigDone) -> assertThat(bigDone - bigDoneAtSend).isLessThan(150));
            assertThat(jobs.count("latency", "ready")).isGreaterThan(1000);
        });
    }

    static class SoloHandler {

        final CyclicBarrier allAtOnce = new CyclicBarrier(6);

        final AtomicInteger met = new AtomicInteger();

        @QueueListener(queue = "solo", concurrency = "6", batchSize = "1")
        void handle(Task task) throws InterruptedException, BrokenBarrierException, TimeoutException {
            allAtOnce.await(20, TimeUnit.SECONDS);
            met.incrementAndGet();
        }
    }

    @Test
    void aKeyAloneReceivesEveryWorker() {
        SoloHandler handler = new SoloHandler();
        ApplicationContextRunner fair = runner
            .withPropertyValues("pgqueue.queues.solo.fairness.weights.only=1", "pgqueue.queues.solo.fairness.weights.other=5")
            .withBean(SoloHandler.class, () -> handler);
        fair.run((context) -> {
            context.getBean(QueueTemplate.class).sendBatch("solo", tasks("only", 12));
            // six handlers meet at the barrier twice: every worker ran a job of the one key at the same time
            await().atMost(Duration.ofSeconds(30)).until(() -> handler.met.get() == 12);
        });
        assertThat(handler.allAtOnce.isBroken()).isFalse();
    }

    static class KeylessHandler {

        final List<String> handled = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "keyless")
        void handle(String payload) {
            handled.add(payload);
        }
    }

    /**
     * Jobs without a key in a fair queue (sent from SQL without p_fairness_key, or by an application that does not
     * know the queue is fair) run under the default key: on main a fair claim never looked at them.
     */
    @Test
    void jobsSentWithoutAKeyRunUnderTheDefaultKey() {
        KeylessHandler handler = new KeylessHandler();
        runner.withPropertyValues("pgqueue.queues.keyless.fairness.enabled=true", "pgqueue.listener.auto-startup=false")
            .withBean(KeylessHandler.class, () -> handler)
            .run((context) -> {
                jobs.jdbc().queryForObject("SELECT pgqueue.send('keyless', '\"from sql\"'::jsonb)", Long.class);
                context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).start();
                await().atMost(Duration.ofSeconds(20)).until(() -> handler.handled.contains("from sql"));
                // with a key now, the default one
                context.getBean(QueueTemplate.class).send("keyless", "from java");
                await().atMost(Duration.ofSeconds(20)).until(() -> handler.handled.contains("from java"));
            });
    }

    static class CappedHandler {

        final Recorder recorder = new Recorder();

        @QueueListener(queue = "capped-keys", concurrency = "4", batchSize = "4")
        void handle(Task task) {
            recorder.run(task, Duration.ofMillis(15));
        }
    }

    @Test
    void perKeyCapsHoldAcrossThreeContextsWhileOtherKeysUseTheRest() {
        CappedHandler handler = new CappedHandler();
        ApplicationContextRunner capped = runner
            .withPropertyValues("pgqueue.queues.capped-keys.fairness.max-running-per-key=2",
                    "pgqueue.queues.capped-keys.fairness.max-running.wide=5")
            .withBean(CappedHandler.class, () -> handler);
        capped.run((a) -> capped.run((b) -> capped.run((c) -> {
            a.getBean(QueueTemplate.class).sendBatch("capped-keys", interleaved(40, "k1", "k2", "wide"));
            await().atMost(Duration.ofSeconds(60)).until(() -> handler.recorder.done.get() == 120);
        })));

        assertThat(handler.recorder.maxRunning.get("k1")).hasValueBetween(1, 2);
        assertThat(handler.recorder.maxRunning.get("k2")).hasValueBetween(1, 2);
        assertThat(handler.recorder.maxRunning.get("wide")).hasValueBetween(3, 5);
        assertThat(handler.recorder.allMax).hasValueGreaterThanOrEqualTo(5);
        assertThat(jobs.count("capped-keys")).isZero();
    }

    static class PausingHandler {

        final Recorder recorder = new Recorder();

        @QueueListener(queue = "pausing", concurrency = "2")
        void handle(Task task) {
            recorder.run(task, Duration.ZERO);
        }
    }

    @Test
    void onePausedKeyWaitsWhileTheOthersRunAndRunsWhenResumed() {
        PausingHandler handler = new PausingHandler();
        ApplicationContextRunner fair = runner.withPropertyValues("pgqueue.queues.pausing.fairness.enabled=true")
            .withBean(PausingHandler.class, () -> handler);
        fair.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            admin.pauseFairnessKey("pausing", "held");
            context.getBean(QueueTemplate.class).sendBatch("pausing", interleaved(5, "held", "free"));
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.recorder.done.get() == 5);
            // a few more claims: none takes the paused key's jobs
            await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(5))
                .until(() -> handler.recorder.done.get() == 5);
            assertThat(handler.recorder.started).containsOnly("free");
            assertThat(jobs.count("pausing", "ready")).isEqualTo(5);
            FairnessKeyInfo held = admin.fairnessKeys("pausing", 10).stream()
                .filter((key) -> key.key().equals("held")).findFirst().orElseThrow();
            assertThat(held.paused()).isTrue();
            assertThat(held.ready()).isEqualTo(5);
            assertThat(held.nextReadySince()).isNotNull();

            admin.resumeFairnessKey("pausing", "held");
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.recorder.done.get() == 10);
        });
        assertThat(jobs.count("pausing")).isZero();
    }

    static class WeightedHandler {

        final Recorder recorder = new Recorder();

        @QueueListener(queue = "weighted", concurrency = "4", batchSize = "4")
        void handle(Task task) {
            recorder.run(task, Duration.ofMillis(1));
        }
    }

    @Test
    void aWeightSetAtRunTimeTakesPrecedenceOverTheConfiguredOneUntilCleared() {
        WeightedHandler handler = new WeightedHandler();
        ApplicationContextRunner fair = runner
            .withPropertyValues("pgqueue.queues.weighted.fairness.weights.x=1", "pgqueue.queues.weighted.fairness.weights.y=1",
                    "pgqueue.listener.auto-startup=false")
            .withBean(WeightedHandler.class, () -> handler);
        fair.run((context) -> {
            QueueAdmin admin = context.getBean(QueueAdmin.class);
            admin.setFairnessWeight("weighted", "x", 4);
            context.getBean(QueueTemplate.class).sendBatch("weighted", interleaved(300, "x", "y"));
            context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).getListenerContainers()
                .forEach(io.pgqueue.listener.QueueListenerContainer::start);
            await().atMost(Duration.ofSeconds(60)).until(() -> handler.recorder.done.get() == 600);
            assertThat(admin.fairnessKeys("weighted", 10)).filteredOn((key) -> key.key().equals("x"))
                .singleElement().satisfies((key) -> assertThat(key.weight()).isEqualTo(4.0));
            admin.clearFairnessWeight("weighted", "x");
            assertThat(admin.fairnessKeys("weighted", 10)).filteredOn((key) -> key.key().equals("x"))
                .singleElement().satisfies((key) -> assertThat(key.weight()).isNull());
        });
        assertThat(handler.recorder.shares(300).get("x")).isCloseTo(0.8, within(0.05));
    }

    static class TransactionalHandler {

        final Recorder recorder = new Recorder();

        @QueueListener(queue = "tx-fair", mode = "transactional", concurrency = "4", batchSize = "2")
        void handle(Task task) {
            recorder.run(task, Duration.ofMillis(3));
        }
    }

    @Test
    void transactionalListenersShareByWeightAndKeepPerKeyCapsWithAdvisorySlots() {
        TransactionalHandler handler = new TransactionalHandler();
        ApplicationContextRunner fair = runner
            .withPropertyValues("pgqueue.queues.tx-fair.fairness.weights.a=3",
                    "pgqueue.queues.tx-fair.fairness.max-running.capped=1", "pgqueue.listener.auto-startup=false")
            .withBean(TransactionalHandler.class, () -> handler);
        fair.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            template.sendBatch("tx-fair", interleaved(200, "a", "b"));
            template.sendBatch("tx-fair", tasks("capped", 40));
            context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).getListenerContainers()
                .forEach(io.pgqueue.listener.QueueListenerContainer::start);
            await().atMost(Duration.ofSeconds(60)).until(() -> handler.recorder.done.get() == 440);
        });
        assertThat(handler.recorder.maxRunning.get("capped")).hasValue(1);
        List<String> ab = handler.recorder.started.stream().filter((key) -> !key.equals("capped")).limit(200).toList();
        double aShare = ab.stream().filter("a"::equals).count() / (double) ab.size();
        assertThat(aShare).isCloseTo(0.75, within(0.07));
        assertThat(jobs.count("tx-fair")).isZero();
    }

    static class FailingTransactionalHandler {

        final AtomicInteger runs = new AtomicInteger();

        @QueueListener(queue = "tx-fair-fails", mode = "TRANSACTIONAL", maxAttempts = "3", concurrency = "1")
        void handle(Task task) {
            runs.incrementAndGet();
            throw new IllegalStateException("fails every attempt");
        }
    }

    /**
     * A TRANSACTIONAL claim whose handler fails rolls back to its savepoint and puts the job back: its key is
     * charged nothing for it (it was charged for every failed attempt, as if the job had run).
     */
    @Test
    void aTransactionalKeyIsNotChargedForJobsARollbackPutBack() {
        FailingTransactionalHandler handler = new FailingTransactionalHandler();
        runner.withPropertyValues("pgqueue.queues.tx-fair-fails.fairness.enabled=true")
            .withBean(FailingTransactionalHandler.class, () -> handler)
            .run((context) -> {
                context.getBean(QueueTemplate.class).sendBatch("tx-fair-fails", tasks("a", 1));
                await().atMost(Duration.ofSeconds(20)).until(() -> jobs.count("tx-fair-fails", "dead") == 1);
                assertThat(handler.runs).hasValue(3);
                assertThat(jobs.jdbc().queryForObject("SELECT pass FROM pgqueue.fair_key WHERE queue = 'tx-fair-fails' "
                        + "AND key = 'a'", Double.class)).isZero();
            });
    }

    static class ChurnHandler {

        final AtomicInteger done = new AtomicInteger();

        final AtomicInteger failures = new AtomicInteger();

        @QueueListener(queue = "churn", concurrency = "4", batchSize = "4")
        void handle(Task task, JobContext job) {
            if (task.n() < 0 && job.attempt() == 1 && failures.getAndIncrement() == 0) {
                throw new IllegalStateException("the first attempt of the retried job fails");
            }
            done.incrementAndGet();
        }
    }

    @Test
    void keysThatGoIdleAndComeBackLoseNoJob() throws InterruptedException {
        ChurnHandler handler = new ChurnHandler();
        ApplicationContextRunner fair = runner.withPropertyValues("pgqueue.queues.churn.fairness.enabled=true",
                "pgqueue.queues.churn.max-attempts=1")
            .withBean(ChurnHandler.class, () -> handler);
        fair.run((context) -> {
            QueueTemplate template = context.getBean(QueueTemplate.class);
            // jobs sent one at a time from four threads while the listener drains: keys empty and refill
            List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                Thread sender = new Thread(() -> {
                    for (int n = 0; n < 250; n++) {
                        String key = "k" + ((thread * 250 + n) % 20);
                        template.send("churn", new Task(key, n), SendOptions.builder().fairnessKey(key).build());
                        if (ThreadLocalRandom.current().nextInt(4) == 0) {
                            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
                        }
                    }
                });
                sender.start();
                senders.add(sender);
            }
            for (Thread sender : senders) {
                sender.join();
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> handler.done.get() == 1000);

            // a delayed job of a drained key becomes ready later; a dead one is retried: both run
            template.send("churn", new Task("late", 1), SendOptions.builder().fairnessKey("late")
                .delay(Duration.ofMillis(300)).build());
            long dead = template.send("churn", new Task("revived", -1), SendOptions.builder().fairnessKey("revived").build())
                .jobId();
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.done.get() == 1001
                    && "dead".equals(jobs.row(dead).get("state")));
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                Long active = jobs.jdbc().queryForObject(
                        "SELECT count(*) FROM pgqueue.fair_key WHERE queue = 'churn' AND key = 'revived' AND active", Long.class);
                return active == 0;
            });
            context.getBean(QueueAdmin.class).retryDead("churn", List.of(dead));
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.done.get() == 1002);
        });
        assertThat(jobs.count("churn")).isZero();
    }

    static class DefaultKeyHandler {

        final List<String> keys = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "defaulted")
        void handle(Task task, JobContext job) {
            keys.add(task.key());
        }
    }

    @Test
    void jobsSentWithoutAKeyToAFairQueueShareTheDefaultKey() {
        DefaultKeyHandler handler = new DefaultKeyHandler();
        ApplicationContextRunner fair = runner.withPropertyValues("pgqueue.queues.defaulted.fairness.enabled=true",
                "pgqueue.listener.auto-startup=false")
            .withBean(DefaultKeyHandler.class, () -> handler);
        fair.run((context) -> {
            long id = context.getBean(QueueTemplate.class).send("defaulted", new Task("none", 1));
            assertThat(jobs.row(id).get("fairness_key")).isEqualTo(SendOptions.DEFAULT_FAIRNESS_KEY);
            context.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class).getListenerContainers()
                .forEach(io.pgqueue.listener.QueueListenerContainer::start);
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.keys.size() == 1);
        });
    }
}
