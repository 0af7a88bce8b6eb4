package io.pgqueue.internal.persistence;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The statements that take jobs out of running or finish them: acknowledgements, failures, snoozes, cancellations,
 * the rescue of other nodes' jobs, the retry and deletion of dead jobs. A statement of a job that is a workflow's
 * node or a batch's member carries those cascades, chosen by the {@link Cascades} decided when the job was
 * claimed; a plain job's statement does without them.
 */
final class FinishStatements {

    /** A statement without cascades and the same statement with the workflow and batch cascades. */
    record ByCascades(Sql plain, Sql cascading) {

        Sql of(Cascades cascades) {
            return cascades.any() ? cascading : plain;
        }
    }

    /** The columns a statement with both cascades must select, so that both notifications are evaluated. */
    private static final String WOKEN = WorkflowCascade.WOKEN + BatchCascade.WOKEN;

    private final Counters counters;

    private final JdbcHistoryRepository history;

    private final WorkflowCascade cascade;

    private final BatchCascade batches;

    private final FairnessCascade fairness;

    /** The acknowledgement of LEASE jobs, by the cascades of the jobs it finishes. */
    private final Map<Cascades, Sql> complete = new EnumMap<>(Cascades.class);

    /**
     * The acknowledgement of one plain job. {@code j.id = ANY(:ids)} is estimated at ten ids in a generic plan and
     * one in a custom plan of a single id, so PostgreSQL planned every single acknowledgement anew (about 0.15 ms
     * of the server's time each); found by its id, the generic plan costs what a custom one does and serves them.
     */
    final Sql completeOne;

    /** {@link #completeOne}'s text, which a capped queue's refill sends before its claim. */
    final String completeOneText;

    /** The cascades of TRANSACTIONAL nodes and members whose handlers succeeded, by their cascades. */
    private final Map<Cascades, Sql> succeeded = new EnumMap<>(Cascades.class);

    /** {@link #succeeded}, releasing the claim's savepoint first. */
    private final Map<Cascades, Sql> releaseThenSucceeded = new EnumMap<>(Cascades.class);

    final ByCascades snooze;

    final ByCascades fail;

    final ByCascades failAfterRollback;

    /** The rollback to the savepoint after a claim, then the failure recorded. */
    final ByCascades undoClaimThenFail;

    /** The rollback to the savepoint after a claim, the claim's rows restored, then the failure recorded. */
    final ByCascades restoreClaimThenFail;

    final Sql snoozeAfterRollback;

    final Sql undoClaimThenSnooze;

    final Sql restoreClaimThenSnooze;

    final Sql cancel;

    final Sql cancelBatchMembers;

    final Sql requestBatchCancel;

    final Sql cancelRequested;

    final Sql cancelRunning;

    final Sql progress;

    final Sql extendLease;

    final Sql release;

    final Sql retryDead;

    final Sql purgeDead;

    final Sql expireDead;

    final Sql cancelRunningNodes;

    final Sql rescue;

    FinishStatements(Schema schema, Counters counters, JdbcHistoryRepository history, WorkflowCascade cascade,
            BatchCascade batches, FairnessCascade fairness) {
        this.counters = counters;
        this.history = history;
        this.cascade = cascade;
        this.batches = batches;
        this.fairness = fairness;
        String leasedAttempt = "id = :id AND attempts = :attempt AND locked_by = :node";
        this.snooze = byCascades(schema, "finish.snooze", (cascades) -> new String[] {
            snoozeStatement(Transition.SNOOZE), cancelRunningStatement(leasedAttempt, cascades.any()) });
        this.fail = byCascades(schema, "finish.fail", (cascades) -> new String[] {
            failStatement(Transition.FAIL, cascades.any()), cancelRunningStatement(leasedAttempt, cascades.any()) });
        this.failAfterRollback = byCascades(schema, "finish.fail-after-rollback",
                (cascades) -> new String[] { failStatement(Transition.FAIL_AFTER_ROLLBACK, cascades.any()) });
        this.undoClaimThenFail = byCascades(schema, "finish.undo-claim-then-fail", (cascades) -> new String[] {
            ClaimSavepoint.ROLLBACK_TO, failStatement(Transition.FAIL_AFTER_ROLLBACK, cascades.any()) });
        this.restoreClaimThenFail = byCascades(schema, "finish.restore-claim-then-fail", (cascades) -> new String[] {
            ClaimSavepoint.ROLLBACK_TO, restoreClaimStatement(),
            failStatement(Transition.FAIL_AFTER_ROLLBACK, cascades.any()) });
        this.snoozeAfterRollback = schema.sql("finish.snooze-after-rollback", snoozeStatement(Transition.SNOOZE_AFTER_ROLLBACK));
        this.undoClaimThenSnooze = schema.sql("finish.undo-claim-then-snooze",
                ClaimSavepoint.ROLLBACK_TO,
                snoozeStatement(Transition.SNOOZE_AFTER_ROLLBACK));
        this.restoreClaimThenSnooze = schema.sql("finish.restore-claim-then-snooze",
                ClaimSavepoint.ROLLBACK_TO,
                restoreClaimStatement(), snoozeStatement(Transition.SNOOZE_AFTER_ROLLBACK));
        this.cancel = schema.sql("cancel.jobs", cancelStatement(":ids::bigint[]", true));
        // a batch's running members are asked to cancel by a statement of their own (requestBatchCancel), which
        // holds no shard: waiting here for a member an acknowledgement holds, while holding shards that
        // acknowledgement waits for, would deadlock
        this.cancelBatchMembers = schema.sql("cancel.batch-members", cancelStatement(
                "ARRAY(SELECT id FROM {schema}.job WHERE batch_id = :batch_id AND state IN ('waiting', 'scheduled', 'ready'))",
                false));
        this.requestBatchCancel = schema.sql("cancel.request-batch-cancel", """
                UPDATE {schema}.job SET cancel_requested = true
                WHERE batch_id = :batch_id AND state = 'running' AND NOT cancel_requested
                RETURNING id""");
        this.cancelRequested = schema.sql("finish.cancel-requested", """
                SELECT id FROM {schema}.job
                WHERE id = ANY(:ids) AND state = 'running' AND locked_by = :node AND cancel_requested""");
        this.cancelRunning = schema.sql("finish.cancel-running", cancelRunningStatement(leasedAttempt));
        this.progress = schema.sql("finish.progress", """
                UPDATE {schema}.job j SET progress_percent = p.percent, progress_message = p.message
                FROM unnest(:ids::bigint[], :attempts::int[], :percents::smallint[], :messages::text[])
                     AS p(id, attempt, percent, message)
                WHERE j.id = p.id AND j.attempts = p.attempt AND j.locked_by = :node AND j.state = 'running'
                """);
        this.completeOneText = completeStatement(Cascades.NONE, "j.id = :id");
        this.completeOne = schema.sql("finish.complete-one", completeOneText);
        for (Cascades cascades : Cascades.values()) {
            complete.put(cascades, schema.sql(name("finish.complete", cascades),
                    completeStatement(cascades, "j.id = ANY(:ids::bigint[])")));
            if (cascades.any()) {
                succeeded.put(cascades, schema.sql(name("finish.succeeded", cascades), membersSucceededStatement(cascades)));
                releaseThenSucceeded.put(cascades, schema.sql(name("finish.release-claim-then-succeeded", cascades),
                        ClaimSavepoint.RELEASE, membersSucceededStatement(cascades)));
            }
        }
        this.cancelRunningNodes = schema.sql("finish.cancel-running-nodes", cancelRunningStatement("id = ANY(:ids::bigint[]) AND "
                + Transition.COMPLETE.guard("")));
        this.rescue = schema.sql("maintenance.rescue", rescueStatement(), cancelRunningStatement("""
                id = ANY(ARRAY(SELECT r.id FROM {schema}.job r
                               WHERE r.state = 'running' AND %s
                                 AND (r.lease_until < now()
                                      OR NOT EXISTS (SELECT 1 FROM {schema}.node n WHERE n.id = r.locked_by))
                               ORDER BY r.id FOR UPDATE SKIP LOCKED))""".formatted(Transition.CANCEL_RUNNING.guard("r"))));
        this.extendLease = schema.sql("finish.extend-lease", """
                UPDATE {schema}.job SET lease_until = greatest(lease_until, now() + :lease_ms * interval '1 millisecond')
                WHERE id = :id AND attempts = :attempt AND locked_by = :node AND state = 'running'
                """);
        this.release = schema.sql("maintenance.release", releaseStatement(),
                cancelRunningStatement("id = ANY(:ids::bigint[]) AND locked_by = :node"));
        this.retryDead = schema.sql("maintenance.retry-dead", retryDeadStatement());
        this.purgeDead = schema.sql("maintenance.purge-dead", deleteDeadStatement(Transition.PURGE,
                "queue = :queue AND state = 'dead' AND (id = ANY(:ids::bigint[]) OR :ids::bigint[] IS NULL) ORDER BY id"));
        this.expireDead = schema.sql("maintenance.expire-dead", deleteDeadStatement(Transition.EXPIRE,
                "state = 'dead' AND coalesce(dead_at, created_at) < now() - :retention_ms * interval '1 millisecond'"));
    }

    /** A statement's name with the cascades it carries ({@code finish.complete:nodes}). */
    private static String name(String statement, Cascades cascades) {
        return cascades.any() ? statement + ":" + cascades.catalogueName() : statement;
    }

    /** The statement made both ways: without cascades, and with the workflow's and the batch's. */
    private static ByCascades byCascades(Schema schema, String name, Function<Cascades, String[]> statements) {
        return new ByCascades(schema.sql(name, statements.apply(Cascades.NONE)),
                schema.sql(name + ":cascades", statements.apply(Cascades.NODES_AND_MEMBERS)));
    }

    /** The acknowledgement of LEASE jobs whose claims decided these cascades (of them all). */
    Sql complete(Cascades cascades) {
        return complete.get(cascades);
    }

    /** The cascades of TRANSACTIONAL jobs whose handlers succeeded (plain jobs need no statement). */
    Sql succeeded(Cascades cascades, boolean releaseClaimSavepoint) {
        return (releaseClaimSavepoint ? releaseThenSucceeded : succeeded).get(cascades);
    }

    /**
     * Deletes finished jobs that this node still owns in the attempt it ran, found {@code byId}. The (id, attempt) pairs are
     * checked through a hashed sub-plan (the {@code IS TRUE} keeps the planner from turning it into a join,
     * which it would plan as a nested loop over every pair when its statistics still say "no running jobs"
     * during a backlog). No {@code state = 'running'} either: only running jobs have an owner, and that
     * predicate would invite the partial lease index.
     */
    private String completeStatement(Cascades cascades, String byId) {
        // a node or member whose cancellation was requested is left to CANCEL_RUNNING (the repository runs it after
        // this one): these variants' cascades are the light ones of jobs that completed
        boolean workflows = cascades.any();
        Steps done = Steps.step("done", """
                DELETE FROM {schema}.job j
                WHERE %s AND %s%s
                RETURNING %s,
                          CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'completed' END AS state""".formatted(byId,
                Transition.COMPLETE.guard("j"), workflows ? " AND NOT j.cancel_requested" : "", JobColumns.FINISHED_COLUMNS))
            .then(history.archive("done", true))
            .then(counters.delta(Transition.COMPLETE, "done", Counters.Rows.MANY))
            .tagged(Transition.COMPLETE);
        return completedCascades(done, "done", cascades);
    }

    /**
     * The success of TRANSACTIONAL nodes and members at the end of their handlers' transaction (the claim deleted
     * their rows), given as {@code :ids} with their {@code :workflow_ids} and {@code :batch_ids}.
     */
    private String membersSucceededStatement(Cascades cascades) {
        return completedCascades(Steps.step("succeeded", """
                SELECT * FROM unnest(:ids::bigint[], :workflow_ids::bigint[], :batch_ids::bigint[])
                              AS s(id, workflow_id, batch_id)"""), "succeeded", cascades);
    }

    /** The steps whose step {@code changed} completed jobs, then the cascades of {@code cascades}, counted. */
    private String completedCascades(Steps steps, String changed, Cascades cascades) {
        return steps.then(cascades.workflow() ? cascade.completed(changed) : Steps.NONE)
            .then(cascades.batch() ? batches.completed(changed) : Steps.NONE)
            .select("SELECT count(*)" + (cascades.workflow() ? WorkflowCascade.WOKEN + WorkflowCascade.DEPOSITED : "")
                    + (cascades.batch() ? BatchCascade.WOKEN : "") + " FROM " + changed);
    }

    /**
     * Finishes running jobs matching {@code filter} whose cancellation was requested, as cancelled: the
     * statement that follows every other way out of running (failure, snooze, release, rescue), which all
     * leave such jobs alone. Running after them, it also finishes a job whose cancellation was requested
     * while they ran.
     */
    private String cancelRunningStatement(String filter) {
        return cancelRunningStatement(filter, true);
    }

    /** As {@link #cancelRunningStatement(String)}; without the workflow cascade for jobs known to be plain. */
    private String cancelRunningStatement(String filter, boolean workflows) {
        return Steps.step("cancelled", """
                DELETE FROM {schema}.job j
                WHERE %s AND j.state = 'running' AND %s
                RETURNING %s, 'cancelled' AS state""".formatted(filter, Transition.CANCEL_RUNNING.guard("j"),
                JobColumns.FINISHED_COLUMNS))
            .then(history.archive("cancelled", false))
            .then(counters.delta(Transition.CANCEL_RUNNING, "cancelled", Counters.Rows.MANY))
            .then(workflows ? cascades(Transition.CANCEL_RUNNING, "cancelled", null) : Steps.NONE)
            .tagged(Transition.CANCEL_RUNNING)
            .select("SELECT count(*)" + (workflows ? WOKEN : "") + " FROM cancelled");
    }

    /**
     * Cancels jobs by id: the scheduled and ready ones finish as cancelled at once (releasing their dedup
     * keys, windows included, and their groups); of the running ones, the cancellation is requested. Rows
     * another transaction holds (a TRANSACTIONAL handler running them) are left alone. Returns each job it
     * did something to, with what.
     */
    private String cancelStatement(String ids, boolean requestRunning) {
        return Steps.step("cancelled", """
                DELETE FROM {schema}.job j
                WHERE j.id = ANY(ARRAY(SELECT id FROM {schema}.job WHERE id = ANY(%s)
                                       AND state IN ('waiting', 'scheduled', 'ready') FOR UPDATE SKIP LOCKED))
                  AND j.state IN ('waiting', 'scheduled', 'ready')
                RETURNING %s, j.state AS from_state, 'cancelled' AS state""".formatted(ids, JobColumns.FINISHED_COLUMNS))
            .then("windows_released", """
                DELETE FROM {schema}.dedup_window w USING cancelled c
                WHERE w.queue = c.queue AND w.dedup_key = c.dedup_key""")
            .then(requestRunning ? Steps.step("requested", """
                UPDATE {schema}.job SET cancel_requested = true
                WHERE id = ANY(%s) AND state = 'running'
                RETURNING id""".formatted(ids)) : Steps.NONE)
            .then(history.archive("cancelled", false))
            .then(counters.delta(Transition.CANCEL, "cancelled", Counters.Rows.MANY))
            .then(cascades(Transition.CANCEL, "cancelled", null))
            .tagged(Transition.CANCEL)
            .select("SELECT id, true AS finished" + WOKEN + " FROM cancelled"
                    + (requestRunning ? "\nUNION ALL SELECT id, false, NULL::text[], NULL::text[] FROM requested" : ""));
    }

    /**
     * Puts a job off without counting the attempt: back to scheduled (or ready without a delay). A LEASE job
     * must still be running under this node in that attempt and not be cancel-requested (the statement that
     * follows finishes such a job); a TRANSACTIONAL job is ready again after its rollback. The delay counts from
     * this statement, not from its transaction's start: a TRANSACTIONAL claim's transaction began before its
     * handlers ran, however long they took.
     */
    private String snoozeStatement(Transition transition) {
        return Steps.step("snoozed", """
                UPDATE {schema}.job
                SET state = CASE WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
                    run_at = statement_timestamp() + :delay_ms::bigint * interval '1 millisecond',
                    attempts = :attempt - 1, locked_by = NULL, lease_until = NULL, debounce_key = NULL
                WHERE id = :id AND %s
                RETURNING queue, state""".formatted(transition.guard("")))
            .then(counters.delta(transition, "snoozed", Counters.Rows.MANY))
            .tagged(transition)
            .select("SELECT count(*) FROM snoozed");
    }

    /**
     * Takes a TRANSACTIONAL claim back inside its transaction, after the rollback to the savepoint set after it
     * (which undoes the handlers' writes; the statement before this one): the claimed rows are put back exactly as
     * the claim deleted them (from the claimed jobs and the rest of each row, {@link JobColumns#RESTORED_FROM_REST}),
     * their history rows removed and the
     * claim's deltas taken back. No other transaction saw them gone, and none can take them before this
     * transaction records why they did not complete.
     */
    private String restoreClaimStatement() {
        List<String> rest = new java.util.ArrayList<>();
        int element = 0;
        for (Map.Entry<String, String> column : JobColumns.RESTORED_FROM_REST.entrySet()) {
            rest.add("(r.rest::json ->> %d)::%s AS %s".formatted(element++, column.getValue(), column.getKey()));
        }
        List<String> columns = new java.util.ArrayList<>(JobColumns.RESTORED_FROM_JOB);
        columns.add("state");
        columns.addAll(JobColumns.RESTORED_FROM_REST.keySet());
        return Steps.step("restored", """
                SELECT r.id, r.queue, r.payload::jsonb AS payload, r.payload_type, r.headers::jsonb AS headers,
                       r.attempts, r.created_at::timestamptz AS created_at, r.run_at::timestamptz AS run_at,
                       r.timeout_ms, r.workflow_id, r.batch_id, r.fairness_key, 'ready' AS state,
                       %s
                FROM unnest(:r_ids::bigint[], :r_queues::text[], :r_payloads::text[], :r_payload_types::text[],
                            :r_headers::text[], :r_attempts::int[], :r_created_ats::text[], :r_run_ats::text[],
                            :r_timeouts::bigint[], :r_workflow_ids::bigint[], :r_batch_ids::bigint[],
                            :r_fairness_keys::text[], :r_rests::text[])
                     AS r(id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms,
                          workflow_id, batch_id, fairness_key, rest)""".formatted(String.join(",\n                   ", rest)))
            .then(history.unarchive("restored"))
            .then(counters.delta(Transition.CLAIM_RESTORE, "restored", Counters.Rows.MANY))
            .tagged(Transition.CLAIM_RESTORE)
            .select("""
                INSERT INTO {schema}.job (%s) OVERRIDING SYSTEM VALUE
                SELECT %s FROM restored""".formatted(String.join(", ", columns), String.join(", ", columns)));
    }

    /**
     * Records a failed attempt: dead, or back to scheduled/ready after the delay. A LEASE job must still be
     * running under this node in that attempt; a TRANSACTIONAL job is ready again after its rollback, with
     * the attempt not yet counted. The backoff and the time of death count from this statement (as for a snooze).
     */
    private String failStatement(Transition transition, boolean workflows) {
        return Steps.step("failed", """
                UPDATE {schema}.job
                SET state = CASE WHEN :dead::boolean THEN 'dead'
                                 WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
                    run_at = CASE WHEN :dead::boolean THEN run_at
                                  ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
                    attempts = :attempt, max_attempts = :max_attempts,
                    locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
                    dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
                WHERE id = :id AND %s
                RETURNING id, queue, state, workflow_id, batch_id""".formatted(transition.guard("")))
            .then(counters.delta(transition, "failed", Counters.Rows.MANY))
            .then(workflows ? cascades(transition, "failed", null) : Steps.NONE)
            .tagged(transition)
            .select("SELECT count(*)" + (workflows ? WOKEN : "") + " FROM failed");
    }

    /**
     * Releases running jobs whose lease expired or whose node stopped heart-beating, and forgets stale nodes.
     * The lost attempt stays counted: a job out of attempts goes dead instead. Every node runs this
     * concurrently, so it never waits for a row another statement holds ({@code SKIP LOCKED}): two rescuers
     * cannot deadlock, and a row being acknowledged right now is left to its owner.
     */
    private String rescueStatement() {
        return Steps.step("stale", """
                DELETE FROM {schema}.node
                WHERE id = ANY(ARRAY(SELECT id FROM {schema}.node
                                     WHERE heartbeat_at < now() - :node_timeout_ms * interval '1 millisecond'
                                     FOR UPDATE SKIP LOCKED))
                RETURNING id""")
            .then("rescued", """
                UPDATE {schema}.job j
                SET state = CASE WHEN j.attempts >= j.max_attempts THEN 'dead' ELSE 'ready' END,
                    locked_by = NULL, lease_until = NULL,
                    dead_at = CASE WHEN j.attempts >= j.max_attempts THEN now() END,
                    last_error = 'Attempt ' || j.attempts || ' lost: ' ||
                                 CASE WHEN j.lease_until < now() THEN 'lease expired' ELSE 'node stopped' END
                WHERE j.id = ANY(ARRAY(
                    SELECT r.id FROM {schema}.job r
                    WHERE r.state = 'running' AND %s
                      AND (r.lease_until < now()
                           OR NOT EXISTS (SELECT 1 FROM {schema}.node n WHERE n.id = r.locked_by
                                          AND n.id NOT IN (SELECT id FROM stale)))
                    ORDER BY r.id FOR UPDATE SKIP LOCKED))
                RETURNING j.id, j.queue, j.state, j.workflow_id, j.batch_id""".formatted(Transition.RESCUE.guard("r")))
            .then(counters.delta(Transition.RESCUE, "rescued", Counters.Rows.MANY))
            .then(cascades(Transition.RESCUE, "rescued", null))
            .tagged(Transition.RESCUE)
            .select("SELECT count(*)" + WOKEN + " FROM rescued");
    }

    private String releaseStatement() {
        return Steps.step("released", """
                UPDATE {schema}.job SET state = 'ready', attempts = attempts - 1, locked_by = NULL, lease_until = NULL
                WHERE id = ANY(:ids::bigint[]) AND %s
                RETURNING queue""".formatted(Transition.RELEASE.guard("")))
            .then(counters.delta(Transition.RELEASE, "released", Counters.Rows.MANY))
            .tagged(Transition.RELEASE)
            .select("SELECT count(*) FROM released");
    }

    /**
     * Gives dead jobs of a queue (one, or all when the id is null) a fresh set of attempts. A dead job whose
     * dedup key is held by a live job stays dead, and of several dead jobs sharing a key only the newest is
     * retried.
     */
    private String retryDeadStatement() {
        return Steps.step("retried", """
                UPDATE {schema}.job j SET state = 'ready', attempts = 0, run_at = now(), dead_at = NULL
                WHERE j.id IN (
                    SELECT DISTINCT ON (d.dedup_key, CASE WHEN d.dedup_key IS NULL THEN d.id END) d.id
                    FROM {schema}.job d
                    WHERE d.queue = :queue AND d.state = 'dead' AND (d.id = ANY(:ids::bigint[]) OR :ids::bigint[] IS NULL)
                      AND (d.dedup_key IS NULL OR NOT EXISTS (
                            SELECT 1 FROM {schema}.job live
                            WHERE live.queue = d.queue AND live.dedup_key = d.dedup_key AND live.state <> 'dead'))
                    ORDER BY d.dedup_key, CASE WHEN d.dedup_key IS NULL THEN d.id END, d.id DESC)
                  AND j.state = 'dead'
                RETURNING j.id, j.queue, j.workflow_id, j.batch_id, j.fairness_key""")
            .then(counters.delta(Transition.RETRY_DEAD, "retried", Counters.Rows.MANY))
            .then(cascades(Transition.RETRY_DEAD, "retried", null))
            .then(fairness.activate("retried", "", false))
            .tagged(Transition.RETRY_DEAD)
            .select("SELECT count(*)" + WOKEN + " FROM retried");
    }

    /** Deletes up to a batch of dead jobs matching a filter (admin purge, retention). */
    private String deleteDeadStatement(Transition transition, String filter) {
        return Steps.step("deleted", """
                DELETE FROM {schema}.job WHERE id = ANY(ARRAY(
                    SELECT id FROM {schema}.job WHERE %s LIMIT :limit FOR UPDATE SKIP LOCKED))
                RETURNING id, queue, workflow_id, batch_id""".formatted(filter))
            .then(counters.delta(transition, "deleted", Counters.Rows.MANY))
            .then(cascades(transition, "deleted", (transition == Transition.PURGE) ? "purged while dead"
                    : "expired while dead"))
            .tagged(transition)
            .select("SELECT count(*)" + WOKEN + " FROM deleted");
    }

    /** The workflow and batch cascades of a transition's statement (see {@link WorkflowCascade#steps}). */
    private Steps cascades(Transition transition, String changed, @Nullable String cause) {
        return cascade.steps(transition, changed, cause).then(batches.steps(transition, changed));
    }
}
