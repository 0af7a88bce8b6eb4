package io.pgqueue.model;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What holds back vacuum in pgqueue's database the longest: the oldest transaction or snapshot (a report, a
 * {@code pg_dump}, a session idle in a transaction), a prepared transaction, or a replication slot. While it
 * holds, no row version the queue leaves behind can be removed.
 *
 * @param kind what holds it
 * @param holder who: the session's application name, user and state, the prepared transaction's id, or the slot's name
 * @param pid the session's process id (for {@code pg_terminate_backend}), or null when there is no session
 * @param since since when it holds the horizon: the transaction's start, or when pgqueue first saw the horizon
 * stand where it stands (slots and sessions whose start pgqueue may not read)
 * @param xidAge how many transactions the horizon is behind
 */
public record VacuumHold(Kind kind, String holder, @Nullable Integer pid, Instant since, long xidAge) {

    /** What holds the horizon back. */
    public enum Kind {

        TRANSACTION, PREPARED_TRANSACTION, REPLICATION_SLOT
    }

    /** How long it has held the horizon as of {@code now}. */
    public Duration age(Instant now) {
        Duration age = Duration.between(since, now);
        return age.isNegative() ? Duration.ZERO : age;
    }

    /** One line for logs and health details. */
    public String describe(Instant now) {
        return kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " " + holder
                + ((pid != null) ? " (pid " + pid + ")" : "") + " has held back vacuum for "
                + age(now).toSeconds() + " s (" + xidAge + " transactions)";
    }
}
