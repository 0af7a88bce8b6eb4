package io.pgqueue.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.LongAdder;

/**
 * The CPU time of the threads that {@link Scenarios#parallel} runs: what a client spends per job in its own
 * process, beside the database. Unlike throughput on this shared machine, it hardly depends on how busy the
 * disk and the other processes are, so it shows a change in what the client does even when throughput cannot.
 */
final class ClientCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final LongAdder NANOS = new LongAdder();

    private ClientCpu() {
    }

    /** Runs a task of {@link Scenarios#parallel}, adding its thread's CPU time to the total. */
    static void measured(Scenarios.ThreadTask task, int index) throws Exception {
        long start = THREADS.getCurrentThreadCpuTime();
        try {
            task.run(index);
        }
        finally {
            NANOS.add(THREADS.getCurrentThreadCpuTime() - start);
        }
    }

    /** The round, recording the microseconds of CPU per job its parallel tasks spent into {@code microsPerJob}. */
    static Callable<Double> metered(Callable<Double> round, long jobs, List<Double> microsPerJob) {
        return () -> {
            long before = NANOS.sum();
            double result = round.call();
            microsPerJob.add((NANOS.sum() - before) / 1000.0 / jobs);
            return result;
        };
    }
}
