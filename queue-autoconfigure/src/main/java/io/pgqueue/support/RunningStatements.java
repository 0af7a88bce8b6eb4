package io.pgqueue.support;

import java.util.function.Consumer;

/**
 * Cancels the pgqueue statements a thread is running, for a background task that must stop now: the driver does
 * not end a statement that waits on the server (a lock, a slow read) when its thread is interrupted. pgqueue's
 * statement runner registers how to cancel (this package depends on nothing, so the runner hands itself in).
 */
public final class RunningStatements {

    private static volatile Consumer<Thread> canceller = (thread) -> {
    };

    private RunningStatements() {
    }

    /** Called once by the statement runner: how to cancel the statements of a thread. */
    public static void cancelWith(Consumer<Thread> cancel) {
        canceller = cancel;
    }

    /** Cancels whatever pgqueue statement the thread is running now (nothing when it runs none). */
    public static void cancel(Thread thread) {
        canceller.accept(thread);
    }
}
