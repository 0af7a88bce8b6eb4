package io.pgqueue.internal.persistence;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Cancels pgqueue's statements that run past their timeout (pgqueue.statement-timeout), from one daemon thread
 * that looks at the running statements twice a second. The driver's own query timeout does the same with a task
 * per statement on a shared timer, scheduled and cancelled around every execution: that cost a send about 4 µs
 * of CPU, a third of what pgqueue adds to the raw insert. Here a statement's start and end are two operations on
 * a concurrent map. A timeout fires up to half a second late; timeouts are whole seconds.
 * <p>
 * A cancel opens a connection of its own to the statement's server, which takes up to the driver's cancel
 * timeout (10 s) when that server does not answer: each cancel runs on a thread of its own, so that one database's
 * outage delays no cancellation on the others.
 */
final class StatementDeadlines {

    /** Every pgqueue statement of this JVM, whichever database it runs in. */
    static final StatementDeadlines SHARED = new StatementDeadlines(TimeUnit.MILLISECONDS.toNanos(500));

    private static final Log logger = LogFactory.getLog(StatementDeadlines.class);

    /** Work on a running statement. */
    @FunctionalInterface
    interface Work<T> {

        T run() throws SQLException;
    }

    /** Runs the cancels: threads made as needed and ended after a minute idle. */
    private final ExecutorService cancels = Executors.newCachedThreadPool((runnable) -> {
        Thread thread = new Thread(runnable, "pgqueue-statement-cancel");
        thread.setDaemon(true);
        return thread;
    });

    /** The running statements, each with its deadline and its thread. */
    private final Map<Statement, Running> running = new ConcurrentHashMap<>();

    /**
     * A running statement's deadline (System.nanoTime()) and the thread that runs it (for a background task that
     * stops to cancel its own).
     */
    private record Running(long deadline, Thread thread) {
    }

    static {
        io.pgqueue.support.RunningStatements.cancelWith(SHARED::cancelStatementsOf);
    }

    private final long checkEveryNanos;

    private volatile boolean checking;

    StatementDeadlines(long checkEveryNanos) {
        this.checkEveryNanos = checkEveryNanos;
    }

    /** Runs work on the statement, which is cancelled if it still runs {@code timeoutSeconds} from now (0: never). */
    <T> T run(Statement statement, int timeoutSeconds, Work<T> work) throws SQLException {
        if (timeoutSeconds <= 0) {
            return work.run();
        }
        running.put(statement, new Running(System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds),
                Thread.currentThread()));
        if (!checking) {
            startChecking();
        }
        try {
            return work.run();
        }
        finally {
            running.remove(statement);
        }
    }

    /** Cancels the statements the thread runs now (each on a cancel thread, as an overdue one). */
    void cancelStatementsOf(Thread thread) {
        running.forEach((statement, run) -> {
            if (run.thread() == thread && running.remove(statement, run)) {
                cancels.execute(() -> cancel(statement));
            }
        });
    }

    private synchronized void startChecking() {
        if (checking) {
            return;
        }
        Thread thread = new Thread(this::checkForever, "pgqueue-statement-timeout");
        thread.setDaemon(true);
        thread.start();
        checking = true;
    }

    private void checkForever() {
        while (true) {
            LockSupport.parkNanos(checkEveryNanos);
            cancelOverdue(System.nanoTime());
        }
    }

    private static void cancel(Statement statement) {
        try {
            statement.cancel();
        }
        catch (SQLException | RuntimeException ex) {
            // closed meanwhile (it finished), or its server does not answer
            logger.debug("Could not cancel an overdue statement: " + ex.getMessage());
        }
    }

    /** Cancels the statements whose deadline passed; the driver makes a cancel of a finished statement do nothing. */
    void cancelOverdue(long now) {
        running.forEach((statement, run) -> {
            if (now - run.deadline() > 0 && running.remove(statement, run)) {
                cancels.execute(() -> cancel(statement));
            }
        });
    }
}
