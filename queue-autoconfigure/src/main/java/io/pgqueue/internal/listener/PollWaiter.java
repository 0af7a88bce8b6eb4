package io.pgqueue.internal.listener;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lets pollers sleep until the poll interval passes or a wake-up arrives, whichever comes first. A wake-up
 * that arrives while nobody waits is kept, so a notification between two polls is never lost.
 */
final class PollWaiter {

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition signalled = lock.newCondition();

    private boolean pending;

    /**
     * Counts wake-ups, so that one wakes every poller waiting at that moment (a TRANSACTIONAL container's
     * workers all wait here), not only the first to take the pending flag.
     */
    private long wakeUps;

    void wakeUp() {
        lock.lock();
        try {
            pending = true;
            wakeUps++;
            signalled.signalAll();
        }
        finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code timeout} or until the next wake-up; returns at once if a wake-up arrived while
     * nobody waited.
     */
    void await(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            long seen = wakeUps;
            while (!pending && wakeUps == seen && nanos > 0) {
                nanos = signalled.awaitNanos(nanos);
            }
            pending = false;
        }
        finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code timeout} ignoring pending wake-ups: used to back off after an error. */
    void pause(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            signalled.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        finally {
            lock.unlock();
        }
    }
}
