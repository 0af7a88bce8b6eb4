package io.pgqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.pgqueue.JobRequest;
import io.pgqueue.QueueTemplate;
import io.pgqueue.SendOptions;
import io.pgqueue.annotation.QueueListener;
import io.pgqueue.support.QueueContextRunners;
import io.pgqueue.testsupport.TestDatabase;
import io.pgqueue.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A capped or rate-limited queue runs at the pace its configuration allows, not at its poll interval (10 s here):
 * a claim that the cap cut short claims again as soon as one of the queue's jobs finished, and one that the rate
 * cut short claims again when the rate's window opens.
 */
class FlowControlPaceTests {

    private static final TestDatabase database = TestPostgres.createDatabase(FlowControlPaceTests.class);

    private final ApplicationContextRunner runner = QueueContextRunners.on(database)
        .withPropertyValues("pgqueue.listener.poll-interval=10s", "pgqueue.maintenance.enabled=false",
                "pgqueue.scheduler.enabled=false");

    record Step(int n) {
    }

    /** Jobs 0 and 1 wait for the test's latch; every job's start is recorded. */
    abstract static class FirstWaveHeld {

        final CountDownLatch firstWaveRunning = new CountDownLatch(2);

        final CountDownLatch releaseFirstWave = new CountDownLatch(1);

        final Map<Integer, Long> startedNanos = new ConcurrentHashMap<>();

        volatile long firstWaveReleasedNanos;

        void hold(Step step) throws InterruptedException {
            startedNanos.put(step.n(), System.nanoTime());
            if (step.n() < 2) {
                firstWaveRunning.countDown();
                assertThat(releaseFirstWave.await(30, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    static class Capped extends FirstWaveHeld {

        @QueueListener(queue = "capped", concurrency = "4")
        void run(Step step) throws InterruptedException {
            hold(step);
        }
    }

    @Test
    void aCappedQueueClaimsAgainAsSoonAsOneOfItsJobsFinished() throws Exception {
        Capped capped = new Capped();
        runner.withPropertyValues("pgqueue.queues.capped.max-running=2")
            .withBean(Capped.class, () -> capped)
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                template.send("capped", new Step(0));
                template.send("capped", new Step(1));
                assertThat(capped.firstWaveRunning.await(10, TimeUnit.SECONDS)).isTrue();
                // the cap is reached: these two wait although workers are free
                template.send("capped", new Step(2));
                template.send("capped", new Step(3));
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                    .until(() -> !capped.startedNanos.containsKey(2) && !capped.startedNanos.containsKey(3));

                capped.firstWaveReleasedNanos = System.nanoTime();
                capped.releaseFirstWave.countDown();

                await().atMost(Duration.ofSeconds(9))
                    .until(() -> capped.startedNanos.containsKey(2) && capped.startedNanos.containsKey(3));
                long secondWave = Math.max(capped.startedNanos.get(2), capped.startedNanos.get(3));
                Duration gap = Duration.ofNanos(secondWave - capped.firstWaveReleasedNanos);
                System.out.println("second wave of a capped queue started " + gap.toMillis() + " ms after the first ended");
                assertThat(gap).as("a freed slot is claimed at once, not after the 10 s poll interval")
                    .isLessThan(Duration.ofMillis(100));
            });
    }

    /** A fair queue's jobs of one key, capped at 2 running. */
    static class CappedKey extends FirstWaveHeld {

        @QueueListener(queue = "capped-key", concurrency = "4")
        void lease(Step step) throws InterruptedException {
            hold(step);
        }

        /** One job per transaction: a batch's jobs run one after the other in one transaction. */
        @QueueListener(queue = "capped-key-tx", mode = "TRANSACTIONAL", concurrency = "4", batchSize = "1")
        void transactional(Step step) throws InterruptedException {
            hold(step);
        }
    }

    @Test
    void aFairQueuesCappedKeyClaimsAgainAsSoonAsOneOfItsJobsFinished() throws Exception {
        secondWaveOfACappedKey("capped-key");
    }

    @Test
    void aTransactionalFairQueuesCappedKeyClaimsAgainAsSoonAsOneOfItsJobsFinished() throws Exception {
        secondWaveOfACappedKey("capped-key-tx");
    }

    /**
     * Four jobs of one key capped at 2 on a queue of four workers: the first two hold the key's slots, the other
     * two wait although workers are free, and start as soon as the first two end (the poll interval is 10 s).
     */
    private void secondWaveOfACappedKey(String queue) throws Exception {
        CappedKey capped = new CappedKey();
        runner.withPropertyValues("pgqueue.queues." + queue + ".fairness.enabled=true",
                    "pgqueue.queues." + queue + ".fairness.max-running-per-key=2")
            .withBean(CappedKey.class, () -> capped)
            .run((context) -> {
                QueueTemplate template = context.getBean(QueueTemplate.class);
                SendOptions tenant = SendOptions.builder().fairnessKey("tenant").build();
                template.send(queue, new Step(0), tenant);
                template.send(queue, new Step(1), tenant);
                assertThat(capped.firstWaveRunning.await(10, TimeUnit.SECONDS)).isTrue();
                template.send(queue, new Step(2), tenant);
                template.send(queue, new Step(3), tenant);
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                    .until(() -> !capped.startedNanos.containsKey(2) && !capped.startedNanos.containsKey(3));

                long released = System.nanoTime();
                capped.releaseFirstWave.countDown();

                await().atMost(Duration.ofSeconds(9))
                    .until(() -> capped.startedNanos.containsKey(2) && capped.startedNanos.containsKey(3));
                Duration gap = Duration.ofNanos(Math.max(capped.startedNanos.get(2), capped.startedNanos.get(3)) - released);
                System.out.println(queue + ": the key's second wave started " + gap.toMillis() + " ms after the first ended");
                assertThat(gap).as("the key's freed slots are claimed at once, not after the 10 s poll interval")
                    .isLessThan(Duration.ofMillis(100));
            });
    }

    /** Records the thread each job ran on, in the order they started. */
    static class OneAtATime {

        final List<String> threads = Collections.synchronizedList(new ArrayList<>());

        @QueueListener(queue = "one-at-a-time", concurrency = "4")
        void run(Step step) {
            threads.add(Thread.currentThread().getName());
        }
    }

    /**
     * A queue capped by {@code max-running} alone fills a freed slot on the worker that freed it: the job's
     * acknowledgement claims the next one, which that worker runs (before, the acknowledgement went to the
     * acknowledgement thread, whose commit woke a poll thread, whose claim went to a worker: three hand-offs).
     */
    @Test
    void aCappedQueuesWorkerRunsTheJobItsCompletionClaimed() {
        OneAtATime queue = new OneAtATime();
        runner.withPropertyValues("pgqueue.queues.one-at-a-time.max-running=1")
            .withBean(OneAtATime.class, () -> queue)
            .run((context) -> {
                context.getBean(QueueTemplate.class).sendBatch("one-at-a-time",
                        IntStream.range(0, 6)
                            .mapToObj((n) -> JobRequest.of(new Step(n), SendOptions.defaults())).toList());
                await().atMost(Duration.ofSeconds(9)).until(() -> queue.threads.size() == 6);
                // the first job may run on a poll thread, which hands the job it claims to a worker
                assertThat(queue.threads.subList(2, 6)).as("threads of jobs 3 to 6 of %s", queue.threads)
                    .containsOnly(queue.threads.get(1));
            });
    }

    /** Another node of the capped queue, which only records starts. */
    static class Recorder {

        final Map<Integer, Long> startedNanos = new ConcurrentHashMap<>();

        @QueueListener(queue = "capped", concurrency = "4")
        void run(Step step) {
            startedNanos.put(step.n(), System.nanoTime());
        }
    }

    @Test
    void anotherNodeLearnsAtOnceThatACappedQueueHasRoom() throws Exception {
        Capped holder = new Capped();
        Recorder other = new Recorder();
        ApplicationContextRunner capped = runner.withPropertyValues("pgqueue.queues.capped.max-running=2");
        capped.withBean(Capped.class, () -> holder).run((first) -> {
            QueueTemplate template = first.getBean(QueueTemplate.class);
            template.send("capped", new Step(0));
            template.send("capped", new Step(1));
            assertThat(holder.firstWaveRunning.await(10, TimeUnit.SECONDS)).isTrue();
            capped.withBean(Recorder.class, () -> other).run((second) -> {
                // the first node fills the cap; the second's claims find it full and wait (10 s poll interval)
                template.send("capped", new Step(2));
                template.send("capped", new Step(3));
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                    .until(() -> other.startedNanos.isEmpty());
                // the first node stops claiming; its two jobs finish as it stops
                QueueListenerContainer container = first.getBean(io.pgqueue.config.QueueListenerContainerRegistry.class)
                    .getListenerContainers().iterator().next();
                Thread stopping = new Thread(container::stop);
                stopping.start();
                await().atMost(Duration.ofSeconds(5)).until(() -> !container.isRunning());
                holder.firstWaveReleasedNanos = System.nanoTime();
                holder.releaseFirstWave.countDown();
                stopping.join(10_000);

                await().atMost(Duration.ofSeconds(9))
                    .until(() -> other.startedNanos.containsKey(2) && other.startedNanos.containsKey(3));
                Duration gap = Duration.ofNanos(Math.max(other.startedNanos.get(2), other.startedNanos.get(3))
                        - holder.firstWaveReleasedNanos);
                System.out.println("another node started the capped queue's next jobs " + gap.toMillis()
                        + " ms after the first node's ended");
                assertThat(gap).as("woken by the first node, not by its 10 s poll interval")
                    .isLessThan(Duration.ofSeconds(2));
            });
        });
    }

    static class RateLimited {

        final List<Instant> started = new java.util.concurrent.CopyOnWriteArrayList<>();

        @QueueListener(queue = "paced", concurrency = "4")
        void run(Step step) {
            started.add(Instant.now());
        }
    }

    @Test
    void aRateLimitedQueueResumesWhenItsWindowOpens() {
        RateLimited paced = new RateLimited();
        runner.withPropertyValues("pgqueue.queues.paced.rate=3/1s")
            .withBean(RateLimited.class, () -> paced)
            .run((context) -> {
                context.getBean(QueueTemplate.class).sendBatch("paced", IntStream.range(0, 9).mapToObj(Step::new).toList());
                // three windows of 1 s, not three poll intervals of 10 s
                await().atMost(Duration.ofSeconds(6)).until(() -> paced.started.size() == 9);
                List<Instant> starts = paced.started.stream().sorted().toList();
                System.out.println("rate 3/1s: 9 jobs started over "
                        + Duration.between(starts.get(0), starts.get(8)).toMillis() + " ms");
                // at three per window, nine starts span at least two window boundaries
                assertThat(Duration.between(starts.get(0), starts.get(8))).isGreaterThan(Duration.ofMillis(1000));
            });
    }
}
