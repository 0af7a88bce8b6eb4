package io.pgqueue.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs stop tasks each on its own thread and waits for all: a shutdown timeout is then paid once, not once
 * per container or database.
 */
public final class AllAtOnce {

    private AllAtOnce() {
    }

    /** Runs every task, keyed by the name its thread gets, and returns when all have returned. */
    public static void run(Map<String, Runnable> tasks) {
        List<Thread> running = new ArrayList<>();
        tasks.forEach((name, task) -> {
            Thread thread = new Thread(task, name);
            running.add(thread);
            thread.start();
        });
        for (Thread thread : running) {
            try {
                thread.join();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
