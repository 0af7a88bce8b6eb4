package io.pgqueue.model;

import java.util.Locale;

/**
 * What a batch callback fires on; each fires at most once per batch, never before the batch is sealed.
 */
public enum BatchEventType {

    /** Every member completed (a dead member retried later and completed counts). */
    SUCCESS,

    /** Every member finished: completed, dead or cancelled. */
    COMPLETE,

    /** A member ended dead, for the first time in the batch. */
    FIRST_DEATH,

    /** A member ended dead or cancelled, for the first time in the batch: it can no longer succeed as sent. */
    CANNOT_SUCCEED;

    /** The value in the {@code event} column. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static BatchEventType of(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
