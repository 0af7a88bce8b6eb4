package io.pgqueue.internal.persistence;

/**
 * What a fair claim's round trip sends around the claim so that PostgreSQL plans it once per connection, not at
 * every claim.
 *
 * <p>A prepared statement is planned for its values for its first five executions; after that the server keeps
 * one generic plan as long as that plan's estimated cost is below the average of the custom plans it made so far.
 * A fair claim's estimate moves tenfold between an empty queue and a backlog (its per-key scans are costed from
 * the job table's statistics), so the custom plans of an idle listener's first polls, or of the last analysis
 * before a backlog, keep the average below the generic plan's cost long after the statistics changed, and the
 * server planned the claim anew at every execution: 2.2–2.4 ms of CPU for a TRANSACTIONAL claim of ten jobs over
 * ten keys, 4.5 ms for an idle LEASE listener's poll, measured with {@code pg_stat_statements}. The claims are
 * written so that the generic plan is the plan the server would make for any values (their limits are constants,
 * "ready" is written for the ready-key index), so the claim asks for it, for itself alone: in the same round trip,
 * set for the transaction before the claim and, in the handlers' transaction, back to the connection's default
 * after it (a transaction that ends, or rolls back to a savepoint set before, takes the setting back with it).
 */
final class GenericPlan {

    /**
     * Before a claim in the handlers' transaction (TRANSACTIONAL): plan it once for the connection (each prepared
     * claim keeps its plan).
     */
    static final String FORCE = "SET LOCAL plan_cache_mode = force_generic_plan";

    /** After that claim: the statements that follow in the transaction (a handler's) are planned as before. */
    static final String RESTORE = "SET LOCAL plan_cache_mode TO DEFAULT";

    /**
     * Before a claim in a transaction of pgqueue's own (LEASE), which takes the setting back when it ends, soon after
     * the claim. Not {@code SET LOCAL}: on an auto-commit connection the round trip is one implicit transaction, where
     * {@code SET LOCAL} works but writes a warning to the server's log at every claim.
     */
    static final String FORCE_IN_OWN_TRANSACTION = """
            DO $$ BEGIN PERFORM set_config('plan_cache_mode', 'force_generic_plan', true); END $$""";

    private GenericPlan() {
    }
}
