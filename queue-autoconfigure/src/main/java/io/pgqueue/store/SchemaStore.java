package io.pgqueue.store;

import java.util.List;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Questions about the schema itself, for checking it when pgqueue does not migrate it.
 */
public class SchemaStore {

    /** The tables the runtime reads and writes. */
    public static final List<String> TABLES = List.of("job", "queue_counter", "queue_counter_delta", "queue_state",
            "node", "schedule");

    private final JdbcTemplate jdbc;

    private final QueueTables tables;

    public SchemaStore(DataSource dataSource, QueueTables tables) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.tables = tables;
    }

    /** The runtime's tables that do not exist in the schema. */
    public List<String> missingTables() {
        List<String> present = jdbc.queryForList(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_name = ANY(?)",
                String.class, tables.schema(), TABLES.toArray(String[]::new));
        return TABLES.stream().filter((table) -> !present.contains(table)).toList();
    }
}
