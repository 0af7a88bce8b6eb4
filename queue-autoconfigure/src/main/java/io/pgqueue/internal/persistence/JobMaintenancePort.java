package io.pgqueue.internal.persistence;

import java.time.Duration;

/**
 * What maintenance needs of the job table: promotion of due jobs, expiry of dead jobs, history and dedup windows, statistics. One of the ports of the job table ({@link JobTable}), each implemented by a class of its own.
 */
public interface JobMaintenancePort {

    /** {@link Transition#PROMOTE} of up to {@code limit} due scheduled jobs of any queue; returns how many. */
    int promoteDue(int limit);

    /**
     * Folds up to a thousand counts of finished workflow parents that were left for their children and not folded
     * after their commit (the node stopped or crashed first), releasing the children that have no parent left
     * ({@link Transition#UNBLOCK}); returns how many.
     */
    int foldDependencyCounts();

    /** Deletes up to {@code limit} expired dedup windows; returns how many. */
    int expireDedupWindows(int limit);

    /**
     * Analyzes the job table (and the workflow edges' table) when its heap has grown to several times the size the
     * planner's statistics record (a new or emptied table filling up before autovacuum first visits it), so that
     * cached plans of the claims and acknowledgements are rebuilt for the table's real size instead of scanning
     * it whole.
     * One node at a time; only where this user owns the table.
     * @return whether the table was analyzed
     */
    boolean refreshStatisticsIfGrown();

    /** {@link Transition#EXPIRE} of up to {@code limit} jobs dead for longer than {@code retention}. */
    int expireDead(Duration retention, int limit);

}
