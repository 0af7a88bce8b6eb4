package io.pgqueue.internal.routing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;


import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Maps a queue, an id or a name to the database unit that holds it. A queue lives in the database that lists
 * it, or else in the default database; an id in the database of its block.
 */
public final class DatabaseRouter<T> {

    private final DatabaseUnit<T> defaultUnit;

    private final List<DatabaseUnit<T>> units;

    private final Map<String, DatabaseUnit<T>> unitByQueue = new HashMap<>();

    private final Map<Integer, DatabaseUnit<T>> unitByBlock = new HashMap<>();

    public DatabaseRouter(DatabaseUnit<T> defaultUnit, List<DatabaseUnit<T>> others) {
        this.defaultUnit = defaultUnit;
        List<DatabaseUnit<T>> all = new ArrayList<>();
        all.add(defaultUnit);
        all.addAll(others);
        this.units = List.copyOf(all);
        for (DatabaseUnit<T> unit : all) {
            unitByBlock.put(unit.idBlock(), unit);
            unit.queues().forEach((queue) -> unitByQueue.put(queue, unit));
        }
    }

    /** Every unit, the default database's first. */
    public List<DatabaseUnit<T>> units() {
        return units;
    }

    public DatabaseUnit<T> defaultUnit() {
        return defaultUnit;
    }

    /** The unit that holds a queue. */
    public DatabaseUnit<T> forQueue(String queue) {
        return unitByQueue.getOrDefault(queue, defaultUnit);
    }

    /**
     * The unit that holds a queue, for a statement that would join the caller's transaction: refused when
     * that transaction runs on another of pgqueue's databases, since the send could not commit or roll back
     * with it.
     * @throws IllegalStateException naming both databases
     */
    public DatabaseUnit<T> forSend(String queue) {
        DatabaseUnit<T> unit = forQueue(queue);
        if (!TransactionSynchronizationManager.isActualTransactionActive() || runsOn(unit)) {
            return unit;
        }
        for (DatabaseUnit<T> other : units) {
            if (other != unit && runsOn(other)) {
                throw new IllegalStateException("Queue '" + queue + "' lives in " + unit
                        + ", but the current transaction runs on " + other + ": a send joins a transaction only on "
                        + "its queue's database. Send after the commit, or outside the transaction "
                        + "(Propagation.NOT_SUPPORTED), or move the queue to " + other);
            }
        }
        return unit;
    }

    private static boolean runsOn(DatabaseUnit<?> unit) {
        return TransactionSynchronizationManager.hasResource(unit.dataSource());
    }

    /** The service of an id's unit; the default database's for an id of no configured block (not found there). */
    public T serviceForId(long id) {
        return unitByBlock.getOrDefault(IdBlocks.blockOf(id), defaultUnit).service();
    }
}
