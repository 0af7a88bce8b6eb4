package io.pgqueue.internal.routing;

import java.util.Set;
import javax.sql.DataSource;


/**
 * One PostgreSQL database's share of one of pgqueue's services (its publishing, its administration or its
 * listeners), working on that database only: with its own repositories, wake-ups, node membership and
 * maintenance.
 *
 * @param name the database's name, {@code default} for the application's DataSource
 * @param idBlock the block its ids are drawn from (0 for the default database)
 * @param dataSource the DataSource its statements run on; a caller's transaction on it is the one a send joins
 * @param queues the queues it holds (empty for the default database, which holds every other queue)
 * @param service the service on that database
 * @param <T> the service's type
 */
public record DatabaseUnit<T>(String name, int idBlock, DataSource dataSource, Set<String> queues, T service) {

    public DatabaseUnit {
        queues = Set.copyOf(queues);
    }

    @Override
    public String toString() {
        return "database '" + name + "'";
    }
}
