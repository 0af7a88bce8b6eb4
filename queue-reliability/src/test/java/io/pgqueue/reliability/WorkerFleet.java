package io.pgqueue.reliability;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

    private final List<WorkerProcess> workers = new ArrayList<>();

    private final Set<Long> killed = new HashSet<>();

    WorkerFleet(String jdbcUrl, String username, String password, List<String> arguments) {
        this.jdbcUrl = jdbcUrl;
        this.username = username;
        this.password = password;
        this.arguments = List.copyOf(arguments);
    }

    void start(int count) throws IOException {
        for (int i = 0; i < count; i++) {
            workers.add(WorkerProcess.start(jdbcUrl, username, password, arguments));
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
