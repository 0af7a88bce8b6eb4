package io.pgqueue.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Watches a steady-state run for a consumer falling behind: samples sent minus handled every 100 ms, keeps
 * the largest backlog, and the first time the backlog exceeds {@code limit} writes a thread dump of this JVM
 * (where the consumer runs, every frame), the machine's busiest processes and three snapshots of what the
 * database's sessions are doing, so that a fall-behind leaves its cause behind instead of only a lower number.
 */
final class BacklogWatch implements AutoCloseable {

    private final AtomicLong maxBacklog = new AtomicLong();

    private final Thread sampler;

    private volatile Path dump;

    private BacklogWatch(LongSupplier sent, LongSupplier handled, long limit, Path directory,
            Callable<String> database) {
        this.sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                long backlog = sent.getAsLong() - handled.getAsLong();
                maxBacklog.accumulateAndGet(backlog, Math::max);
                if (backlog > limit && dump == null) {
                    dump = dump(directory, backlog, database);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }, "backlog-watch");
        this.sampler.setDaemon(true);
    }

    static BacklogWatch start(LongSupplier sent, LongSupplier handled, long limit, Path directory,
            Callable<String> database) {
        BacklogWatch watch = new BacklogWatch(sent, handled, limit, directory, database);
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

    /** The machine's busiest processes ({@code ps}), to tell a starved consumer from a slow one. */
    private static String processes() {
        try {
            Process ps = new ProcessBuilder("ps", "-eo", "pid,pcpu,etime,args", "--sort=-pcpu").redirectErrorStream(true)
                .start();
            String output = new String(ps.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            ps.waitFor(10, TimeUnit.SECONDS);
            return output.lines().limit(15).map((line) -> line.length() > 200 ? line.substring(0, 200) : line)
                .collect(java.util.stream.Collectors.joining("\n"));
        }
        catch (IOException ex) {
            return "not read: " + ex;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "not read: interrupted";
        }
    }

    @Override
    public void close() {
        sampler.interrupt();
    }

    private static Path dump(Path directory, long backlog, Callable<String> database) {
        StringBuilder text = new StringBuilder("backlog " + backlog + " jobs\n\n");
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            text.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState());
            if (thread.getLockName() != null) {
                text.append(" on ").append(thread.getLockName());
            }
            text.append('\n');
            for (StackTraceElement frame : thread.getStackTrace()) {
                text.append("\tat ").append(frame).append('\n');
            }
            text.append('\n');
        }
        text.append("busiest processes of the machine:\n").append(processes()).append('\n');
        for (int snapshot = 1; snapshot <= 3; snapshot++) {
            text.append("database sessions, snapshot ").append(snapshot).append(":\n");
            try {
                text.append(database.call());
            }
            catch (Exception ex) {
                text.append("not read: ").append(ex).append('\n');
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
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
