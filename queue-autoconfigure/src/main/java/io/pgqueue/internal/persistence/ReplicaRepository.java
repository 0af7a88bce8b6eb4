package io.pgqueue.internal.persistence;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** What a read replica says of itself. */
public interface ReplicaRepository {

    /**
     * How far the server's replay is behind its primary: zero when it has replayed all it received, the age of
     * the last replayed transaction otherwise; null when the server is not a replica (not in recovery).
     */
    @Nullable Duration replayLag();
}
