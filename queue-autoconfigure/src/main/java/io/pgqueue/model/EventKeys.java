package io.pgqueue.model;

import org.jspecify.annotations.Nullable;

/** The keys of events that jobs await (durable execution): what an application may emit and await. */
public final class EventKeys {

    /** Keys of pgqueue's own events (a spawned job's end): an application's key may not start with it. */
    public static final String OWN = "pgqueue:";

    /** The longest key, as the table's check says. */
    public static final int MAX_LENGTH = 512;

    private EventKeys() {
    }

    /** The key of the event that tells how a spawned job ended. */
    public static String jobEnded(long jobId) {
        return OWN + "job:" + jobId;
    }

    /**
     * Refuses a key that is empty, too long, holds a NUL, or is pgqueue's own.
     *
     * @throws IllegalArgumentException naming the key (its start, when long)
     */
    public static void check(@Nullable String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_LENGTH || key.indexOf('\u0000') >= 0) {
            throw new IllegalArgumentException("An event key must have 1 to " + MAX_LENGTH + " characters (no NUL): "
                    + ((key == null) ? "null" : "'" + key.substring(0, Math.min(key.length(), 60)) + "'"
                            + ((key.length() > 60) ? "... (" + key.length() + " characters)" : "")));
        }
        if (key.startsWith(OWN)) {
            throw new IllegalArgumentException("Event keys starting with '" + OWN + "' are pgqueue's own: '" + key + "'");
        }
    }
}
