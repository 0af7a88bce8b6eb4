package io.pgqueue.internal.persistence;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The JDBC {@link ReplicaRepository}: the server's recovery functions, no table.
 */
final class JdbcReplicaRepository implements ReplicaRepository {

    private final Jdbc jdbc;

    private final Sql replayLag;

    private static final String REPLAY_LAG = """
            SELECT CASE
                WHEN NOT pg_is_in_recovery() THEN NULL
                WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                ELSE (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::bigint
            END
            """;

    JdbcReplicaRepository(Jdbc jdbc, Schema schema) {
        this.jdbc = jdbc;
        this.replayLag = schema.sql("replica.replay-lag", REPLAY_LAG);
    }

    @Override
    public @Nullable Duration replayLag() {
        List<Duration> lag = jdbc.query(replayLag, Jdbc.Binder.NONE, (row) -> {
            long millis = row.getLong(1);
            return row.wasNull() ? null : Duration.ofMillis(Math.max(0, millis));
        });
        return lag.isEmpty() ? null : lag.get(0);
    }
}
