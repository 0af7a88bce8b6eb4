package io.pgqueue.model;

import java.util.regex.Pattern;

/**
 * Queue names are 1 to 128 characters from letters, digits and {@code . _ - :}. They are stored as data,
 * never as SQL, but a narrow alphabet keeps them safe in metric tags, URLs and NOTIFY channels.
 */
public final class QueueNames {

    public static final int MAX_LENGTH = 128;

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._:-]{1," + MAX_LENGTH + "}");

    private QueueNames() {
    }

    /** Returns the name when valid; throws {@link IllegalArgumentException} saying why otherwise. */
    public static String validate(String queue) {
        if (queue == null || queue.isBlank()) {
            throw new IllegalArgumentException("Queue name must not be blank");
        }
        if (!VALID.matcher(queue).matches()) {
            throw new IllegalArgumentException("Invalid queue name '" + abbreviate(queue) + "': use 1 to "
                    + MAX_LENGTH + " characters from letters, digits and . _ - :");
        }
        return queue;
    }

    private static String abbreviate(String value) {
        return (value.length() <= 60) ? value : value.substring(0, 60) + "...";
    }
}
