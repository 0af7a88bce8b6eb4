package io.pgqueue.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import org.jspecify.annotations.Nullable;

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
    record Spent(double machine, double process, double database, double compiler, double gc) {

        Spent(double machine, double process) {
            this(machine, process, Double.NaN, Double.NaN, Double.NaN);
        }

        /** This JVM's CPU time without its JIT compiler threads'. */
        double withoutCompiler() {
            // the compiler threads' time comes in whole ticks, the process's to the nanosecond
            return Math.max(0, process - compiler);
        }
    }

    /** Marks the start of a measured interval. */
    static Spent now() {
        double[] compilerAndGc = compilerAndGcTicks();
        return new Spent(machineBusyTicks() * MICROS_PER_TICK, OS.getProcessCpuTime() / 1000.0,
                postgresTicks() * MICROS_PER_TICK, compilerAndGc[0] * MICROS_PER_TICK,
                compilerAndGc[1] * MICROS_PER_TICK);
    }

    /** Ends the interval that {@code start} began; {@link #metered} reads it. */
    static void since(Spent start) {
        Spent end = now();
        last = new Spent(end.machine() - start.machine(), end.process() - start.process(),
                end.database() - start.database(), end.compiler() - start.compiler(), end.gc() - start.gc());
        if (Boolean.getBoolean("bench.cpu-rounds")) {
            System.out.printf(java.util.Locale.ROOT, "   round: machine %.0f ms, this JVM %.0f ms (JIT compiler threads "
                    + "%.0f ms, GC threads %.0f ms), postgres processes %.0f ms%n", last.machine() / 1000,
                    last.process() / 1000, last.compiler() / 1000, last.gc() / 1000, last.database() / 1000);
        }
    }

    /** The round, adding the CPU per job its measured interval spent (machine, process) to {@code perJob}. */
    static Callable<Double> metered(Callable<Double> round, long jobs, List<Spent> perJob) {
        return () -> {
            double result = round.call();
            Spent spent = last;
            perJob.add(new Spent(spent.machine() / jobs, spent.process() / jobs, spent.database() / jobs,
                    spent.compiler() / jobs, spent.gc() / jobs));
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
                new Result(scenario, "JVM CPU per job without JIT compilation, " + versus,
                        median(ours, Spent::withoutCompiler), median(theirs, Spent::withoutCompiler), "µs", false,
                        "the same without the JIT compiler threads' CPU time: what a warmed-up JVM spends (each round "
                                + "starts an application of its own, whose start-up code is still being compiled "
                                + "while the clock runs; median JIT share " + compilerShare(ours) + " / "
                                + compilerShare(theirs) + " µs per job)"),
                new Result(scenario, "PostgreSQL CPU per job, " + versus, median(ours, Spent::database),
                        median(theirs, Spent::database), "µs", false, "CPU time of the local server's processes while "
                                + "the jobs " + work + ", per job (NaN for a server elsewhere)"));
    }

    private static String compilerShare(List<Spent> spent) {
        return String.format(java.util.Locale.ROOT, "%.2f", median(spent, Spent::compiler));
    }

    /** utime + stime of the live processes named postgres: a local server's backends, while they run. */
    private static double postgresTicks() {
        try (java.util.stream.Stream<Path> processes = Files.list(Path.of("/proc"))) {
            return processes.filter((dir) -> dir.getFileName().toString().chars().allMatch(Character::isDigit))
                .map((dir) -> TaskTicks.read(dir.resolve("stat")))
                .filter((task) -> task != null && task.name().equals("postgres"))
                .mapToLong(TaskTicks::ticks)
                .sum();
        }
        catch (IOException ex) {
            return Double.NaN;
        }
    }

    /**
     * utime + stime of this JVM's JIT compiler threads and of its garbage collector's threads, from
     * {@code /proc/self/task} (HotSpot names them "C1 CompilerThread", "C2 CompilerThread", "GC Thread#n",
     * "G1 …"): work of the JVM's own that no application thread does. NaN where {@code /proc} cannot be read.
     */
    private static double[] compilerAndGcTicks() {
        double[] ticks = new double[2];
        try (java.util.stream.Stream<Path> threads = Files.list(Path.of("/proc/self/task"))) {
            threads.map((thread) -> TaskTicks.read(thread.resolve("stat"))).filter(java.util.Objects::nonNull)
                .forEach((thread) -> {
                    if (thread.name().contains("CompilerThre")) {
                        ticks[0] += thread.ticks();
                    }
                    else if (thread.name().startsWith("GC Thread") || thread.name().startsWith("G1 ")) {
                        ticks[1] += thread.ticks();
                    }
                });
            return ticks;
        }
        catch (IOException ex) {
            return new double[] { Double.NaN, Double.NaN };
        }
    }

    /** A process's or thread's name and CPU time (utime + stime, in ticks) from its {@code stat} file. */
    private record TaskTicks(String name, long ticks) {

        /** Null when the task ended while it was read. */
        static @Nullable TaskTicks read(Path stat) {
            try {
                String line = Files.readString(stat);
                int close = line.lastIndexOf(')');
                String[] fields = line.substring(close + 2).split(" ");
                return new TaskTicks(line.substring(line.indexOf('(') + 1, close),
                        Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
            }
            catch (IOException | RuntimeException ex) {
                return null;
            }
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
