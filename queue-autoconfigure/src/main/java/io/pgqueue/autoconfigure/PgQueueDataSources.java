package io.pgqueue.autoconfigure;

import java.util.List;
import javax.sql.DataSource;

/**
 * The DataSources pgqueue's queues live in: the application's, and one per {@code pgqueue.databases} entry.
 * For tools that read the queue tables directly, such as {@code QueueTestSupport}.
 */
public interface PgQueueDataSources {

    /** The DataSource of the database a queue lives in. */
    DataSource forQueue(String queue);

    /** Every database's DataSource, the application's first. */
    List<DataSource> all();
}
