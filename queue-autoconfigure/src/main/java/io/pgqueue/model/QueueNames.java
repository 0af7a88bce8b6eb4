package io.pgqueue.model;

/**
 * Queue names are 1 to 128 characters from letters, digits and {@code . _ - :}. They are stored as data,
 * never as SQL, but a narrow alphabet keeps them safe in metric tags, URLs and NOTIFY channels.
 */
public final class QueueNames {

    public static final int MAX_LENGTH = 128;

    private QueueNames() {
    }

    /** Returns the name when valid; throws {@link IllegalArgumentException} saying why otherwise. */
    public static String validate(String queue) {
        if (queue == null || queue.isBlank()) {
            throw new IllegalArgumentException("Queue name must not be blank");
        }
        if (queue.length() > MAX_LENGTH || !isNameAlphabet(queue)) {
            throw new IllegalArgumentException("Invalid queue name '" + abbreviate(queue) + "': use 1 to "
                    + MAX_LENGTH + " characters from letters, digits and . _ - :");
        }
        return queue;
    }

    /** Every character a letter or digit (ASCII) or one of {@code . _ - :}; checked on every send, so no regex. */
    private static boolean isNameAlphabet(String queue) {
        for (int i = 0; i < queue.length(); i++) {
            char c = queue.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                    || c == '_' || c == ':' || c == '-';
            if (!allowed) {
                return false;
            }
        }
        return true;
    }

    private static String abbreviate(String value) {
        return (value.length() <= 60) ? value : value.substring(0, 60) + "...";
    }
}
