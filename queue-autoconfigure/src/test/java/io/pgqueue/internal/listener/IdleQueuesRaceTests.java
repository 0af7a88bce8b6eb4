package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgqueue.listener.ContainerOptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The node's idle timer ends after a while with nothing to do, and starts again on demand. Wake-ups asked for
 * while it ends must neither fail (a rejected task, thrown in the worker that recorded a retry, broke its
 * container) nor be lost, and a container parked while it ends must still be polled for.
 */
class IdleQueuesRaceTests {

    /** A container that only counts its wake-ups. */
    static final class CountingContainer extends AbstractQueueListenerContainer {

        final AtomicInteger wakeUps = new AtomicInteger();

        CountingContainer(IdleQueues idle) {
            super(ContainerOptions.builder().id("counting").queue("counting").build(), null, idle);
        }

        @Override
        public void wakeUp() {
            wakeUps.incrementAndGet();
        }

        @Override
        protected void doStart() {
        }

        @Override
        protected void doStop() {
        }

        @Override
        public int inFlight() {
            return 0;
        }
    }

    @Test
    void wakeUpsAskedForWhileTheTimerEndsAreNeitherRejectedNorLost() throws Exception {
        // the timer ends after a single idle tick: it starts and ends all through the test
        IdleQueues idle = new IdleQueues(null, Duration.ofMillis(100), 0);
        CountingContainer container = new CountingContainer(idle);
        int threads = 4;
        int perThread = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        // now and then every asker stops until the timer, idle, has ended: the next wake-ups meet it ending
        java.util.concurrent.CyclicBarrier idleTogether = new java.util.concurrent.CyclicBarrier(threads,
                () -> await().atMost(Duration.ofSeconds(5)).until(() -> !idle.timerRunning()));
        try {
            List<Future<?>> askers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                askers.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        idle.wakeAfter(container, Duration.ZERO);
                        if (i % 50 == 0) {
                            idleTogether.await(10, TimeUnit.SECONDS);
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> asker : askers) {
                asker.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> container.wakeUps.get() == threads * perThread);
    }
}
