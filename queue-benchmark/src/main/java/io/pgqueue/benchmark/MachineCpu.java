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
     * @param database the processes named {@code postgres}: a server on this machine
     */
    record Spent(double machine, double process, double database) {

        Spent(double machine, double process) {
            this(machine, process, Double.NaN);
        }
    }

    /** Marks the start of a measured interval. */
    static Spent now() {
        return new Spent(machineBusyTicks() * MICROS_PER_TICK, OS.getProcessCpuTime() / 1000.0,
                postgresTicks() * MICROS_PER_TICK);
    }

    /** Ends the interval that {@code start} began; {@link #metered} reads it. */
    static void since(Spent start) {
        Spent end = now();
        last = new Spent(end.machine() - start.machine(), end.process() - start.process(),
                end.database() - start.database());
        if (Boolean.getBoolean("bench.cpu-rounds")) {
            System.out.printf(java.util.Locale.ROOT, "   round: machine %.0f ms, this JVM %.0f ms, postgres processes %.0f ms%n",
                    last.machine() / 1000, last.process() / 1000, last.database() / 1000);
        }
    }

    /** The round, adding the CPU per job its measured interval spent (machine, process) to {@code perJob}. */
    static Callable<Double> metered(Callable<Double> round, long jobs, List<Spent> perJob) {
        return () -> {
            double result = round.call();
            Spent spent = last;
            perJob.add(new Spent(spent.machine() / jobs, spent.process() / jobs, spent.database() / jobs));
            return result;
        };
    }

    static double median(List<Spent> spent, java.util.function.ToDoubleFunction<Spent> part) {
        return Scenarios.median(spent.stream().map(part::applyAsDouble).toList());
    }

    /**
     * Rows for the CPU each job cost pgqueue and its baseline, medians of their rounds: the machine's, the
     * benchmark JVM's and the local PostgreSQL server's processes'.
     */
    static List<Result> rows(String scenario, String versus, List<Spent> ours, List<Spent> theirs, String work) {
        return List.of(
                new Result(scenario, "machine CPU per job, " + versus, median(ours, Spent::machine),
                        median(theirs, Spent::machine), "µs", false, "every process's CPU time while the jobs " + work
                                + ", per job, median of the rounds above"),
                new Result(scenario, "JVM CPU per job, " + versus, median(ours, Spent::process),
                        median(theirs, Spent::process), "µs", false, "the benchmark JVM's CPU time (every thread, GC "
                                + "and JIT included) while the jobs " + work + ", per job"),
                new Result(scenario, "PostgreSQL CPU per job, " + versus, median(ours, Spent::database),
                        median(theirs, Spent::database), "µs", false, "CPU time of the local server's processes while "
                                + "the jobs " + work + ", per job (NaN for a server elsewhere)"));
    }

    /** utime + stime of the live processes named postgres: a local server's backends, while they run. */
    private static double postgresTicks() {
        try (java.util.stream.Stream<Path> processes = Files.list(Path.of("/proc"))) {
            return processes.filter((dir) -> dir.getFileName().toString().chars().allMatch(Character::isDigit))
                .mapToLong((dir) -> {
                    try {
                        String stat = Files.readString(dir.resolve("stat"));
                        int close = stat.lastIndexOf(')');
                        if (!stat.substring(stat.indexOf('(') + 1, close).equals("postgres")) {
                            return 0;
                        }
                        String[] fields = stat.substring(close + 2).split(" ");
                        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                    }
                    catch (IOException | RuntimeException ex) {
                        return 0;
                    }
                })
                .sum();
        }
        catch (IOException ex) {
            return Double.NaN;
        }
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
