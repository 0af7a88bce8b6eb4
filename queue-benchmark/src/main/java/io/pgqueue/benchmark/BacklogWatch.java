package io.pgqueue.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Watches a steady-state run for a consumer falling behind: samples sent minus handled every 100 ms, keeps
 * the largest backlog, and the first time the backlog exceeds {@code limit} writes a thread dump of this JVM
 * (where the consumer runs), so that a fall-behind leaves its cause behind instead of only a lower number.
 */
final class BacklogWatch implements AutoCloseable {

    private final AtomicLong maxBacklog = new AtomicLong();

    private final Thread sampler;

    private volatile Path dump;

    private BacklogWatch(LongSupplier sent, LongSupplier handled, long limit, Path directory) {
        this.sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                long backlog = sent.getAsLong() - handled.getAsLong();
                maxBacklog.accumulateAndGet(backlog, Math::max);
                if (backlog > limit && dump == null) {
                    dump = threadDump(directory, backlog);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }, "backlog-watch");
        this.sampler.setDaemon(true);
    }

    static BacklogWatch start(LongSupplier sent, LongSupplier handled, long limit, Path directory) {
        BacklogWatch watch = new BacklogWatch(sent, handled, limit, directory);
        watch.sampler.start();
        return watch;
    }

    long maxBacklog() {
        return maxBacklog.get();
    }

    /** The thread dump written when the backlog first passed the limit, or null if it never did. */
    Path dump() {
        return dump;
    }

    @Override
    public void close() {
        sampler.interrupt();
    }

    private static Path threadDump(Path directory, long backlog) {
        StringBuilder text = new StringBuilder("backlog " + backlog + " jobs\n\n");
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true, 64)) {
            text.append(thread);
        }
        try {
            Files.createDirectories(directory);
            Path file = directory.resolve("steady-threads-"
                    + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".txt");
            Files.writeString(file, text);
            System.out.println("   steady state: backlog of " + backlog + " jobs, threads written to " + file);
            return file;
        }
        catch (IOException ex) {
            System.out.println("   steady state: backlog of " + backlog + " jobs; thread dump not written: " + ex);
            return directory;
        }
    }
}
