package io.pgqueue.internal.listener;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WorkerPoolTests {

    private final AtomicInteger threadCount = new AtomicInteger();

    private WorkerPool pool;

    private WorkerPool pool(int size) {
        pool = new WorkerPool(size, (task) -> new Thread(task, "test-worker-" + threadCount.incrementAndGet()));
        return pool;
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void runsEveryJobExactlyOnceWhenManyThreadsSubmit() throws Exception {
        WorkerPool workers = pool(8);
        int jobs = 20_000;
        AtomicLongArray runs = new AtomicLongArray(jobs);
        CountDownLatch done = new CountDownLatch(jobs);
        Thread[] submitters = new Thread[4];
        for (int s = 0; s < submitters.length; s++) {
            int first = s;
            submitters[s] = new Thread(() -> {
                for (int i = first; i < jobs; i += submitters.length) {
                    int job = i;
                    workers.execute(() -> {
                        runs.incrementAndGet(job);
                        done.countDown();
                    });
                }
            });
            submitters[s].start();
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < jobs; i++) {
            assertThat(runs.get(i)).as("runs of job %d", i).isEqualTo(1);
        }
    }

    @Test
    void slowJobsSpreadToEveryThread() throws Exception {
        int size = 16;
        WorkerPool workers = pool(size);
        // each job waits until all of them run at the same time: only possible on size threads
        CountDownLatch allRunning = new CountDownLatch(size);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(size);
        for (int i = 0; i < size; i++) {
            workers.execute(() -> {
                threads.add(Thread.currentThread().getName());
                allRunning.countDown();
                try {
                    if (allRunning.await(10, TimeUnit.SECONDS)) {
                        done.countDown();
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertThat(done.await(15, TimeUnit.SECONDS)).isTrue();
        assertThat(threads).hasSize(size);
    }

    @Test
    void neverRunsMoreJobsAtOnceThanItsSize() throws Exception {
        WorkerPool workers = pool(3);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(200);
        for (int i = 0; i < 200; i++) {
            workers.execute(() -> {
                maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                Thread.onSpinWait();
                running.decrementAndGet();
                done.countDown();
            });
        }
        assertThat(done.await(15, TimeUnit.SECONDS)).isTrue();
        assertThat(maxRunning.get()).isBetween(1, 3);
    }

    @Test
    void shutdownLetsAcceptedJobsFinishAndShutdownNowInterruptsRunningOnes() throws Exception {
        WorkerPool workers = pool(2);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        for (int i = 0; i < 6; i++) {
            workers.execute(() -> {
                try {
                    release.await();
                    finished.incrementAndGet();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        workers.shutdown();
        assertThat(workers.awaitTermination(100, TimeUnit.MILLISECONDS)).isFalse();
        release.countDown();
        assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(finished.get()).isEqualTo(6);

        WorkerPool stuck = pool(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        stuck.execute(() -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            }
            catch (InterruptedException ex) {
                interrupted.countDown();
            }
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        stuck.shutdownNow();
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
    }
}
