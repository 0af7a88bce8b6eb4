package io.pgqueue.internal.persistence;

import java.util.regex.Pattern;

/**
 * What a PostgreSQL {@code text} or {@code jsonb} value can hold: no NUL character, raw or as the JSON escape
 * {@code \u0000}. A handler's output or progress message may contain one (a C string, a binary field read as
 * text); storing it as is fails the statement, and with it the acknowledgement or the heartbeat that carried
 * it. Each NUL becomes U+FFFD, the replacement character, which keeps the rest of the value readable.
 */
public final class PostgresText {

    private static final char REPLACEMENT = '\uFFFD';

    /** {@code \u0000} after an even number of backslashes: the escape itself, not an escaped backslash before "u0000". */
    private static final Pattern JSON_NUL = Pattern.compile("(?<!\\\\)((?:\\\\\\\\)*)\\\\u0000");

    private PostgresText() {
    }

    /** The text with each NUL character replaced. */
    public static String text(String value) {
        return (value.indexOf('\u0000') < 0) ? value : value.replace('\u0000', REPLACEMENT);
    }

    /** JSON text (as Jackson writes it) with each NUL, escaped or raw, replaced. */
    public static String json(String value) {
        String raw = text(value);
        return raw.contains("u0000") ? JSON_NUL.matcher(raw).replaceAll("$1\\\\ufffd") : raw;
    }
}
