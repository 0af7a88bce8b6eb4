package io.pgqueue.reliability;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker JVMs of one test, all on the same database and arguments: started, killed and replaced,
 * stopped gracefully at the end; whatever is still alive when the fleet closes (a failed test) is killed.
 */
final class WorkerFleet implements AutoCloseable {

    private final String jdbcUrl;

    private final String username;

    private final String password;

    private final List<String> arguments;

    /** Another build's soak jar the workers run from, or null for this one's class path. */
    private final @Nullable Path soakJar;

    private final List<WorkerProcess> workers = new ArrayList<>();

    private final Set<Long> killed = new HashSet<>();

    WorkerFleet(String jdbcUrl, String username, String password, List<String> arguments) {
        this(null, jdbcUrl, username, password, arguments);
    }

    /** A fleet of workers running another build (its executable soak jar), e.g. the version before an upgrade. */
    WorkerFleet(@Nullable Path soakJar, String jdbcUrl, String username, String password, List<String> arguments) {
        this.soakJar = soakJar;
        this.jdbcUrl = jdbcUrl;
        this.username = username;
        this.password = password;
        this.arguments = List.copyOf(arguments);
    }

    void start(int count) throws IOException {
        for (int i = 0; i < count; i++) {
            workers.add(WorkerProcess.start(soakJar, jdbcUrl, username, password, arguments));
        }
    }

    int size() {
        return workers.size();
    }

    /** SIGKILLs the worker at this position and starts another in its place. */
    void killAndReplace(int index) throws IOException, InterruptedException {
        WorkerProcess victim = workers.remove(index);
        victim.kill();
        killed.add(victim.pid());
        start(1);
    }

    /** The process ids of the workers killed so far. */
    Set<Long> killed() {
        return Set.copyOf(killed);
    }

    /** SIGTERM to the oldest worker, which must stop by itself; it leaves the fleet. */
    void stopOldestGracefully() throws IOException, InterruptedException {
        WorkerProcess oldest = workers.remove(0);
        assertThat(oldest.stopGracefully()).as(oldest.log()).isTrue();
    }

    /** The process ids of the workers running now. */
    Set<Long> pids() {
        Set<Long> pids = new HashSet<>();
        workers.forEach((worker) -> pids.add(worker.pid()));
        return pids;
    }

    /** SIGTERM to every worker: each must stop by itself, not be killed for taking too long. */
    void stopGracefully() throws IOException, InterruptedException {
        for (WorkerProcess worker : workers) {
            assertThat(worker.stopGracefully()).as(worker.log()).isTrue();
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (WorkerProcess worker : workers) {
            if (worker.isAlive()) {
                worker.kill();
            }
        }
    }
}
