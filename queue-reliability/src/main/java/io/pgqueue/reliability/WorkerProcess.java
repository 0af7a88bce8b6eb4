package io.pgqueue.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A {@link CrashWorker} running as a separate JVM on the same classpath, with its output in a log file.
 */
public final class WorkerProcess {

    /** Listener timing for fast rescue: a killed worker's jobs are released within about two seconds. */
    static final List<String> FAST_RESCUE = List.of("--pgqueue.listener.heartbeat-interval=300ms",
            "--pgqueue.listener.node-timeout=1500ms", "--pgqueue.listener.lease-duration=5s",
            "--pgqueue.listener.poll-interval=200ms", "--pgqueue.listener.shutdown-timeout=10s",
            "--pgqueue.listener.backoff.initial=100ms");

    private final Process process;

    private final Path log;

    private WorkerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    public static WorkerProcess start(String jdbcUrl, String username, String password) throws IOException {
        return start(jdbcUrl, username, password, List.of());
    }

    /** Starts a worker with further application arguments, e.g. {@code --pgqueue.listener.notify=false}. */
    public static WorkerProcess start(String jdbcUrl, String username, String password, List<String> arguments)
            throws IOException {
        return start(null, jdbcUrl, username, password, arguments);
    }

    /**
     * Starts a worker from another build's executable soak jar (an older version, for a rolling upgrade), or from
     * this JVM's class path when {@code soakJar} is null.
     */
    public static WorkerProcess start(@Nullable Path soakJar, String jdbcUrl, String username, String password,
            List<String> arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        String classPath = (soakJar != null) ? soakJar.toString() : System.getProperty("java.class.path");
        if (soakJar != null || launchedFromExecutableJar()) {
            // running from the soak's executable jar: start its launcher with the worker as main class
            command.addAll(List.of("-cp", classPath, "-Dloader.main=" + CrashWorker.class.getName(),
                    "org.springframework.boot.loader.launch.PropertiesLauncher"));
        }
        else {
            command.addAll(List.of("-cp", classPath, CrashWorker.class.getName()));
        }
        command.addAll(List.of("--spring.datasource.url=" + jdbcUrl, "--spring.datasource.username=" + username,
                "--spring.datasource.password=" + password, "--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off", "--logging.level.root=WARN", "--logging.level.io.pgqueue=WARN",
                "--spring.datasource.hikari.maximum-pool-size=12"));
        command.addAll(FAST_RESCUE);
        command.addAll(arguments);
        Path log = Files.createTempFile("pgqueue-worker-", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new WorkerProcess(process, log);
    }

    private static boolean launchedFromExecutableJar() {
        try {
            Class.forName("org.springframework.boot.loader.launch.PropertiesLauncher", false,
                    WorkerProcess.class.getClassLoader());
            return true;
        }
        catch (ClassNotFoundException ex) {
            return false;
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no graceful anything. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: Spring's shutdown hook stops the containers gracefully. */
    public boolean stopGracefully() throws InterruptedException {
        process.destroy();
        return process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() != 137;
    }

    public String log() throws IOException {
        return Files.readString(log);
    }
}
