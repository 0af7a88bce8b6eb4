package io.pgqueue.internal.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import io.pgqueue.admin.QueueAdmin;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Where an admin call goes when queues live in several databases: a queue to its database, a job, workflow or
 * batch to the database of its id's block, a schedule to the database that has it; a listing asks every database
 * and merges the answers, leaving out a database that does not answer. Shared by the routing roles.
 */
final class AdminRoutes {

    private static final Log logger = LogFactory.getLog(AdminRoutes.class);

    private final DatabaseRouter<QueueAdmin> router;

    QueueAdmin of(String queue) {
        return router.forQueue(queue).service();
    }

    QueueAdmin id(long id) {
        return router.serviceForId(id);
    }

    /** Every answering database's list, concatenated in database order. */
    <T> List<T> all(Function<QueueAdmin, List<T>> call) {
        List<T> merged = new ArrayList<>();
        for (DatabaseUnit<QueueAdmin> unit : router.units()) {
            try {
                merged.addAll(call.apply(unit.service()));
            }
            catch (RuntimeException ex) {
                skipped(unit, ex);
            }
        }
        return merged;
    }

    private static void skipped(DatabaseUnit<QueueAdmin> unit, RuntimeException ex) {
        if (logger.isDebugEnabled()) {
            logger.debug("Left " + unit + " out of a listing: it did not answer", ex);
        }
    }

    /** The first database that finds the name, asked in order; the default database's answer when none does. */
    <T> T firstFound(Function<QueueAdmin, T> call, java.util.function.Predicate<T> found) {
        T answer = null;
        for (DatabaseUnit<QueueAdmin> unit : router.units()) {
            T candidate = call.apply(unit.service());
            if (answer == null) {
                answer = candidate;
            }
            if (found.test(candidate)) {
                return candidate;
            }
        }
        return answer;
    }

    QueueAdmin schedule(String name) {
        for (DatabaseUnit<QueueAdmin> unit : router.units()) {
            try {
                if (unit.service().schedules().stream().anyMatch((schedule) -> schedule.name().equals(name))) {
                    return unit.service();
                }
            }
            catch (RuntimeException ex) {
                skipped(unit, ex);
            }
        }
        return router.defaultUnit().service();
    }

    <K> Map<K, Long> sum(Function<QueueAdmin, Map<K, Long>> call, Map<K, Long> totals) {
        all((admin) -> List.copyOf(call.apply(admin).entrySet()))
            .forEach((entry) -> totals.merge(entry.getKey(), entry.getValue(), Long::sum));
        return totals;
    }

    static <T> List<T> newest(List<T> items, ToLongFunction<T> id, int limit) {
        return items.stream().sorted(Comparator.comparingLong(id).reversed()).limit(limit).toList();
    }

    DatabaseRouter<QueueAdmin> router() {
        return router;
    }

    AdminRoutes(DatabaseRouter<QueueAdmin> router) {
        this.router = router;
    }
}
