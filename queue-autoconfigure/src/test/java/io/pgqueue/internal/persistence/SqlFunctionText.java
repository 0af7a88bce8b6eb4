package io.pgqueue.internal.persistence;


/**
 * What the SQL function {@code pgqueue.send()} must say, generated from the transition table like every
 * statement of the job repository: the function is written once in a migration, and a test holds it to this.
 */
public final class SqlFunctionText {

    private SqlFunctionText() {
    }

    /** The counter deltas of one enqueued row, unqualified (the function runs in pgqueue's schema), whitespace collapsed. */
    public static String enqueueDeltas() {
        String statement = new Counters(true).delta(Transition.ENQUEUE, "inserted", Counters.Rows.ONE)
            .select("SELECT 1");
        // the step as the function writes it after its insert: ", counted_enqueue AS (...)"
        String step = statement.substring("WITH ".length(), statement.lastIndexOf("\nSELECT 1"));
        return normalize(", " + step.replace("{schema}.", ""));
    }

    public static String normalize(String sql) {
        return sql.replaceAll("\\s+", " ").trim();
    }
}
