package io.pgqueue.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The CPU time spent while the last {@link Scenarios#rate} ran: by the whole machine (every process, the
 * database's included, from {@code /proc/stat}) and by this JVM. On a machine whose cores the database and the
 * client share, a drain's throughput follows the CPU each job costs both; unlike throughput, that cost hardly
 * moves with the disk and the machine's other tenants, so it shows what a change saves when the rate cannot.
 */
final class MachineCpu {

    private static final Path STAT = Path.of("/proc/stat");

    /** {@code USER_HZ}: the unit of {@code /proc/stat}, 100 on every Linux the JVM runs on. */
    private static final double MICROS_PER_TICK = 10_000.0;

    private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean();

    private static volatile Spent last = new Spent(Double.NaN, Double.NaN);

    private MachineCpu() {
    }

    /**
     * CPU time in microseconds.
     *
     * @param machine every process on the machine, or NaN where {@code /proc/stat} cannot be read
     * @param process this JVM
     */
    record Spent(double machine, double process) {
    }

    /** Marks the start of a measured interval. */
    static Spent now() {
        return new Spent(machineBusyTicks() * MICROS_PER_TICK, OS.getProcessCpuTime() / 1000.0);
    }

    /** Ends the interval that {@code start} began; {@link #metered} reads it. */
    static void since(Spent start) {
        Spent end = now();
        last = new Spent(end.machine() - start.machine(), end.process() - start.process());
    }

    /** The round, adding the CPU per job its measured interval spent (machine, process) to {@code perJob}. */
    static Callable<Double> metered(Callable<Double> round, long jobs, List<Spent> perJob) {
        return () -> {
            double result = round.call();
            Spent spent = last;
            perJob.add(new Spent(spent.machine() / jobs, spent.process() / jobs));
            return result;
        };
    }

    static double median(List<Spent> spent, boolean machine) {
        return Scenarios.median(spent.stream().map((one) -> machine ? one.machine() : one.process()).toList());
    }

    /** user + nice + system + irq + softirq of the first line; idle, iowait and steal are not busy. */
    private static double machineBusyTicks() {
        try {
            String[] fields = Files.readAllLines(STAT).get(0).trim().split("\\s+");
            long busy = 0;
            for (int index : new int[] { 1, 2, 3, 6, 7 }) {
                busy += Long.parseLong(fields[index]);
            }
            return busy;
        }
        catch (IOException | RuntimeException ex) {
            return Double.NaN;
        }
    }
}
