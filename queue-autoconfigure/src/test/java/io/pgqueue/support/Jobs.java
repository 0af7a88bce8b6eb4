package io.pgqueue.support;

import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reads the job table of a test database.
 */
public final class Jobs {

    private final JdbcTemplate jdbc;

    public Jobs(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
    }

    public JdbcTemplate jdbc() {
        return jdbc;
    }

    public long count(String queue) {
        return jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ?", Long.class, queue);
    }

    public long count(String queue, String state) {
        return jdbc.queryForObject("SELECT count(*) FROM pgqueue.job WHERE queue = ? AND state = ?", Long.class, queue,
                state);
    }

    public Map<String, Object> row(long id) {
        return jdbc.queryForMap("SELECT * FROM pgqueue.job WHERE id = ?", id);
    }

    public List<Map<String, Object>> rows(String queue) {
        return jdbc.queryForList("SELECT * FROM pgqueue.job WHERE queue = ? ORDER BY id", queue);
    }

    /** Inserts a raw row, e.g. a payload no listener can read. */
    public long insertRaw(String queue, String payloadJson, String payloadType) {
        return jdbc.queryForObject("INSERT INTO pgqueue.job (queue, state, payload, payload_type) "
                + "VALUES (?, 'ready', ?::jsonb, ?) RETURNING id", Long.class, queue, payloadJson, payloadType);
    }
}
