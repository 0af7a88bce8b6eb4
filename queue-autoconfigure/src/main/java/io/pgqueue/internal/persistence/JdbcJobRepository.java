package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import io.pgqueue.listener.RateLimit;
import io.pgqueue.model.DeadJob;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC {@link JobRepository}: the SQL of the job table, one statement per transition, built once at
 * startup for the features switched on (counters, history). Rows are found by primary key
 * ({@code id = ANY(ARRAY(...))}) so that a busy or bloated table never turns a statement into a sequential
 * scan.
 */
final class JdbcJobRepository implements JobRepository {

    /**
     * The savepoint a TRANSACTIONAL claim sets after it deletes its jobs (a fair claim: before): rolling back to
     * it undoes the handlers' writes, the claimed rows are put back ({@link Transition#CLAIM_RESTORE}), and the
     * statement that records their failure or snooze follows in the same round trip, so that no other worker can
     * claim them in between.
     */
    static final String CLAIM_SAVEPOINT = "pgqueue_claim";

    /**
     * The start of a statement that ends a successful TRANSACTIONAL batch: what it writes after this is written
     * by the transaction itself, not by the claim's subtransaction.
     */
    static final String RELEASE_CLAIM_SAVEPOINT = "RELEASE SAVEPOINT " + CLAIM_SAVEPOINT;

    /** The start of a statement that records a failure or snooze: the claim and the handlers' writes undone. */
    private static final String ROLLBACK_TO_CLAIM_SAVEPOINT = "ROLLBACK TO SAVEPOINT " + CLAIM_SAVEPOINT;

    /** Due scheduled jobs a claim promotes before it claims. */
    private static final int PROMOTE_PER_CLAIM = 1000;

    /**
     * The ready jobs a claim takes, in claim order, unless the queue is paused cluster-wide. A job with a
     * group key is taken only when no job of its group is running and no earlier one is pending (a failed one
     * waiting for its retry counts as pending when failures block the group).
     */
    private static final String READY = """
            SELECT id FROM {schema}.job j
            WHERE j.queue = :queue AND j.state = 'ready'
              AND NOT EXISTS (SELECT 1 FROM {schema}.queue_state s WHERE s.queue = :queue AND s.paused)
              AND """ + FairnessCascade.GROUP_TURN;

    /**
     * The ready jobs a claim takes: {@link #READY} in claim order, at most {@code limit} (a bind parameter, or a
     * constant written in: see {@link #claimLeasedBySize}).
     */
    private static String readyIds(String limit) {
        return READY + """

                ORDER BY j.priority DESC, j.run_at, j.id LIMIT %s FOR UPDATE SKIP LOCKED""".formatted(limit);
    }

    /**
     * The ready jobs past a cursor: any of a higher priority than the cursor's, then those of its priority after
     * it in (run-at, id). Each branch is one range of the ready index (a row comparison on its trailing columns
     * is an index condition), so neither reads the entries of jobs claimed before the cursor. Jobs that became
     * ready behind it (rescued, released, a rolled-back claim, a group's next job) wait for the next claim that
     * reads from the start.
     */
    private static String readyIdsAfter(String limit) {
        return "SELECT id FROM (SELECT id FROM (" + READY + """

                  AND j.priority > :after_priority
                ORDER BY j.priority DESC, j.run_at, j.id LIMIT %1$s FOR UPDATE SKIP LOCKED) AS higher
                UNION ALL
                SELECT id FROM (""".formatted(limit) + READY + """

                  AND j.priority = :after_priority AND (j.run_at, j.id) > (:after_run_at::timestamptz, :after_id::bigint)
                ORDER BY j.run_at, j.id LIMIT %1$s FOR UPDATE SKIP LOCKED) AS later) AS ready LIMIT %1$s""".formatted(limit);
    }

    /** The ready jobs of a claim: from the start, or past a cursor. */
    private static String readyIds(boolean after, String limit) {
        return after ? readyIdsAfter(limit) : readyIds(limit);
    }

    /** A claim's limit as a bind parameter (statements that serve any size). */
    private static final String LIMIT_PARAMETER = ":limit";

    /** The columns of the rows a claim returns. */
    private static final List<String> CLAIMED = List.of("id", "queue", "payload", "payload_type", "headers", "attempts",
            "max_attempts", "created_at", "run_at", "claimed_at", "timeout_ms", "priority", "workflow_id", "batch_id",
            "fairness_key");

    /** The columns a claim returns. */
    private static final String CLAIMED_COLUMNS = "SELECT " + String.join(", ", CLAIMED) + " FROM claimed";

    /** What a TRANSACTIONAL claim returns: the claimed columns, and the rest of each row to restore it from. */
    private static final String CLAIMED_WITH_RESTS = "SELECT " + String.join(", ", CLAIMED) + ", rest FROM claimed";

    /**
     * The columns of a job's row that a claimed job does not carry as they are in the row, with their types: a
     * TRANSACTIONAL claim returns them as one JSON array (cheap to produce: most are null), so that a claim taken
     * back restores every column ({@code ClaimRestoreColumnsTests} checks that these, {@link #RESTORED_FROM_JOB}
     * and the state are all the job table's columns, with these types).
     */
    static final Map<String, String> RESTORED_FROM_REST = restColumns();

    /** The columns a claim taken back restores from the claimed job. */
    static final List<String> RESTORED_FROM_JOB = List.of("id", "queue", "payload", "payload_type", "headers",
            "attempts", "created_at", "run_at", "timeout_ms", "workflow_id", "batch_id", "fairness_key");

    private static final String REST_OF_ROW = "json_build_array(" + String.join(", ",
            RESTORED_FROM_REST.keySet().stream().map((column) -> "j." + column).toList()) + ")::text";

    private static Map<String, String> restColumns() {
        Map<String, String> columns = new java.util.LinkedHashMap<>();
        columns.put("priority", "smallint");
        columns.put("max_attempts", "integer");
        columns.put("dedup_key", "text");
        columns.put("group_key", "text");
        columns.put("locked_by", "uuid");
        columns.put("lease_until", "timestamptz");
        columns.put("last_error", "text");
        columns.put("dead_at", "timestamptz");
        columns.put("cancel_requested", "boolean");
        columns.put("attempted_at", "timestamptz");
        columns.put("progress_percent", "smallint");
        columns.put("progress_message", "text");
        columns.put("debounce_key", "text");
        columns.put("pending_parents", "integer");
        return java.util.Collections.unmodifiableMap(columns);
    }

    /**
     * What a fair claim returns: the claimed rows, or one row of nulls when it claimed none, each with the keys
     * the claim found empty ({@code fair_emptied}).
     */
    private static final String FAIR_CLAIMED_COLUMNS = "SELECT "
            + String.join(", ", CLAIMED.stream().map((column) -> "c." + column).toList())
            + ", e.keys AS emptied FROM (SELECT array_agg(key) AS keys FROM fair_emptied) e LEFT JOIN claimed c ON true";

    /** What a LEASE claim does to the rows it takes (the claim's SET clause). */
    private static final String LEASE_SET = """
            SET state = 'running', attempts = j.attempts + 1,
                max_attempts = coalesce(j.max_attempts, :default_max_attempts),
                locked_by = :node, lease_until = now() + :lease_ms * interval '1 millisecond',
                attempted_at = now(), progress_percent = NULL, progress_message = NULL""";

    /** What the LEASE claim's changed rows return. */
    private static final String LEASE_RETURNING = """
            RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
                      j.attempts, j.max_attempts, j.created_at, j.run_at, now() AS claimed_at, j.timeout_ms,
                      j.priority, j.workflow_id, j.batch_id, j.fairness_key""";

    /** What the TRANSACTIONAL claim's deleted rows return (for the history too). */
    private static final String DELETE_RETURNING = """
            RETURNING j.id, j.queue, j.payload, j.payload_type, j.headers,
                      j.attempts + 1 AS attempts, coalesce(j.max_attempts, :default_max_attempts) AS max_attempts,
                      j.created_at, j.run_at, j.group_key, j.dedup_key, now() AS claimed_at, j.timeout_ms,
                      now() AS attempted_at, j.last_error, 'completed' AS state, j.priority, j.workflow_id, j.batch_id,
                      j.fairness_key""";

    /** What a statement that finishes jobs returns of each row, for the history (with the finished state). */
    static final String FINISHED_COLUMNS = """
            j.id, j.queue, j.payload, j.payload_type, j.headers, j.attempts, j.group_key, j.dedup_key, j.created_at,
            j.run_at, j.attempted_at, j.last_error, j.workflow_id, j.batch_id""";

    /**
     * Dedup windows of the input rows that have one: a key is taken again only once its window expired and no
     * live job holds it (a send that the job's own dedup key turns away must not renew the window); the rows
     * whose key could not be taken are not inserted.
     */
    private static final String WINDOW_CTE = """
            , windowed AS (
                INSERT INTO {schema}.dedup_window AS w (queue, dedup_key, expires_at)
                SELECT DISTINCT ON (queue, dedup_key) queue, dedup_key, now() + dedup_for_ms * interval '1 millisecond'
                FROM input i WHERE dedup_for_ms IS NOT NULL AND dedup_key IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM {schema}.job live
                                  WHERE live.queue = i.queue AND live.dedup_key = i.dedup_key AND live.state <> 'dead')
                ON CONFLICT (queue, dedup_key) DO UPDATE SET expires_at = excluded.expires_at WHERE w.expires_at <= now()
                RETURNING queue, dedup_key
            )""";

    /** Live jobs of one queue or all queues that a listener would pick up now (exact; for tests). */
    /** Below this many pages (1 MB) a sequential scan costs nothing worth an ANALYZE. */
    private static final long STATISTICS_MIN_PAGES = 128;

    /** How many times the recorded size the heap must reach before statistics are refreshed. */
    private static final long STATISTICS_GROWTH = 4;

    private final Jdbc jdbc;

    private final Schema schema;

    private final Counters counters;

    private final JdbcHistoryRepository history;

    /**
     * The condition that makes a LEASE claim's transaction commit without waiting for its WAL flush (set inside the
     * statement, so that the claim stays one round trip): a claim lost in a server crash only lets its job be
     * claimed again. Measured, a flush per claim cost 13% of the jobs per second in claims of 100 and 30% in claims
     * of 10.
     */
    private static final String ASYNCHRONOUS_COMMIT = "AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL";

    /** {@link #ASYNCHRONOUS_COMMIT}, or nothing where claims are durable. */
    private final String claimCommit;

    private final TransactionTemplate transactions;

    /** A read beside the transaction on this thread (suspended meanwhile), on a connection of its own. */
    private final TransactionTemplate besideTransaction;

    /** The insert statements by row shape, each without and with NOTIFY, then both again with dedup windows. */
    private final Map<RowShape, Sql[]> enqueue = new EnumMap<>(RowShape.class);

    private final Sql enqueueDebounced;

    /** The batch members' insert statements by row shape, as {@link #enqueue}. */
    private final Map<RowShape, Sql[]> enqueueToBatch = new EnumMap<>(RowShape.class);

    private final Sql cancelBatchMembers;

    private final Sql requestBatchCancel;

    /** Each of these by whether the job may be a workflow's node: [plain jobs, with the workflow cascade]. */
    private final Sql[] snooze;

    private final Sql snoozeAfterRollback;

    private final Sql[] undoClaimThenFail;

    private final Sql undoClaimThenSnooze;

    /** The rollback to the savepoint after a claim, the claim's rows restored, then the snooze recorded. */
    private final Sql restoreClaimThenSnooze;

    /** As {@link #restoreClaimThenSnooze}, recording a failure (plain jobs, members). */
    private final Sql[] restoreClaimThenFail;

    private final Sql cancel;

    private final Sql cancelRequested;

    private final Sql cancelRunning;

    private final Sql progress;

    private final Sql expireDedupWindows;

    private final Sql statisticsOutgrown;

    private final Sql analyze;

    private final JobLookups lookups;

    private final Sql promoteDue;

    private final Sql promoteDueOfQueue;

    private final Sql promoteDueOfFairQueue;

    /** The fair claims' statements by their size: most jobs per claim, most keys a claim looks at. */
    private final Map<FairSize, Sql> claimFairLeased = new java.util.concurrent.ConcurrentHashMap<>();

    private final Map<FairSize, Sql> claimFairAndDelete = new java.util.concurrent.ConcurrentHashMap<>();

    /** A fair claim's size: its statement is made once per size, its limits constants. */
    record FairSize(int most, int keys) {
    }

    /** The size of the default listener's fair claims (batch 10, 16 keys per claim). */
    private static final FairSize DEFAULT_FAIR_SIZE = new FairSize(10, 16);

    private final Sql chargeFairness;

    private final Sql sweepLock;

    private final Sql sweepSettle;

    private final Sql activateReadyKeys;

    private final Sql adoptKeylessJobs;

    private final FairnessCascade fairness = new FairnessCascade();

    /**
     * The plain claims with their limit bound as a parameter: the throttled LEASE claim's (its room varies claim
     * by claim), and any claim's past {@link #MOST_SIZED_STATEMENTS} sizes.
     */
    private final Sql claimLeased;

    private final Sql claimLeasedAfter;

    private final Sql claimAndDeleteAfter;

    private final Sql claimAndDelete;

    /**
     * The plain claims with their limit written into the statement, by limit (at most
     * {@link #MOST_SIZED_STATEMENTS} each; past that the parameterized statement serves): with every limit a
     * constant, PostgreSQL's generic plan of the prepared statement serves each claim, where a limit bound as a
     * parameter made it plan the claim anew at every execution (a custom plan: 0.8–1.0 ms per claim on this
     * project's machine, a third of the claim's time in the server).
     */
    private final Map<Integer, Sql> claimLeasedBySize = new java.util.concurrent.ConcurrentHashMap<>();

    private final Map<Integer, Sql> claimLeasedAfterBySize = new java.util.concurrent.ConcurrentHashMap<>();

    private final Map<Integer, Sql> claimAndDeleteBySize = new java.util.concurrent.ConcurrentHashMap<>();

    private final Map<Integer, Sql> claimAndDeleteAfterBySize = new java.util.concurrent.ConcurrentHashMap<>();

    /** Claim sizes given statements of their own, per claim statement (containers ask for a few sizes each). */
    private static final int MOST_SIZED_STATEMENTS = 64;

    private final Sql complete;

    /**
     * The variants of the statements that complete workflow nodes or batch members, by the kinds of jobs they
     * complete: {@link #NODES}, {@link #MEMBERS} or both (index 0 is unused: plain jobs have their own).
     */
    private final Sql[] completeMembers = new Sql[4];

    private final Sql[] membersSucceeded = new Sql[4];

    /** {@link #membersSucceeded}, releasing the claim's savepoint first. */
    private final Sql[] releaseThenMembersSucceeded = new Sql[4];

    /** A kind of job whose completion cascades, as a bit of the variant index. */
    private static final int NODES = 1;

    private static final int MEMBERS = 2;

    /** The columns a statement with both cascades must select, so that both notifications are evaluated. */
    private static final String NOTIFIED = WorkflowCascade.NOTIFIED + BatchCascade.NOTIFIED;

    private final Sql cancelRunningNodes;

    private final WorkflowCascade cascade;

    private final BatchCascade batches;

    private final Sql[] fail;

    private final Sql[] failAfterRollback;

    private final Sql rescue;

    private final Sql release;

    private final Sql extendLease;

    private final Sql retryDead;

    private final Sql purgeDead;

    private final Sql readyQueues;

    private final Sql expireDead;

    private final Sql throttleLock;

    private final Sql countRunning;

    private final Sql rateWindow;

    private final Sql rateStarted;

    private final Sql findLiveByDedupKey;

    private final Sql deadIds;

    private final Sql deadJobs;

    private final Sql deadJobSummaries;

    JdbcJobRepository(Jdbc jdbc, Schema schema, Counters counters, JdbcHistoryRepository history,
            boolean durableClaims) {
        this.claimCommit = durableClaims ? "" : ASYNCHRONOUS_COMMIT;
        this.jdbc = jdbc;
        this.schema = schema;
        this.counters = counters;
        this.history = history;
        this.cascade = new WorkflowCascade(counters, history);
        this.batches = new BatchCascade(counters);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(jdbc.dataSource()));
        this.besideTransaction = new TransactionTemplate(transactions.getTransactionManager());
        besideTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        besideTransaction.setReadOnly(true);
        for (RowShape shape : RowShape.values()) {
            for (boolean batched : new boolean[] { false, true }) {
                Sql[] variants = new Sql[8];
                for (int variant = 0; variant < variants.length; variant++) {
                    variants[variant] = schema.sql(enqueueName(shape, (variant & 1) != 0, (variant & 2) != 0, batched,
                            (variant & 4) != 0), enqueueStatement(shape, (variant & 1) != 0, (variant & 2) != 0,
                            batched, (variant & 4) != 0));
                }
                (batched ? enqueueToBatch : enqueue).put(shape, variants);
            }
        }
        this.enqueueDebounced = schema.sql("enqueue.debounced", debounceStatement());
        String leasedAttempt = "id = :id AND attempts = :attempt AND locked_by = :node";
        this.snooze = new Sql[2];
        this.fail = new Sql[2];
        this.failAfterRollback = new Sql[2];
        this.undoClaimThenFail = new Sql[2];
        this.restoreClaimThenFail = new Sql[2];
        for (boolean workflows : new boolean[] { false, true }) {
            int variant = workflows ? 1 : 0;
            this.snooze[variant] = schema.sql(workflows ? "finish.snooze:nodes" : "finish.snooze", snoozeStatement(Transition.SNOOZE),
                    cancelRunningStatement(leasedAttempt, workflows));
            this.fail[variant] = schema.sql(workflows ? "finish.fail:nodes" : "finish.fail", failStatement(Transition.FAIL, workflows),
                    cancelRunningStatement(leasedAttempt, workflows));
            this.failAfterRollback[variant] = schema.sql(
                    workflows ? "finish.fail-after-rollback:nodes" : "finish.fail-after-rollback", failStatement(Transition.FAIL_AFTER_ROLLBACK, workflows));
            this.undoClaimThenFail[variant] = schema.sql(
                    workflows ? "finish.undo-claim-then-fail:nodes" : "finish.undo-claim-then-fail", ROLLBACK_TO_CLAIM_SAVEPOINT,
                    failStatement(Transition.FAIL_AFTER_ROLLBACK, workflows));
            this.restoreClaimThenFail[variant] = schema.sql(
                    workflows ? "finish.restore-claim-then-fail:nodes" : "finish.restore-claim-then-fail", ROLLBACK_TO_CLAIM_SAVEPOINT,
                    restoreClaimStatement(), failStatement(Transition.FAIL_AFTER_ROLLBACK, workflows));
        }
        this.snoozeAfterRollback = schema.sql("finish.snooze-after-rollback", snoozeStatement(Transition.SNOOZE_AFTER_ROLLBACK));
        this.undoClaimThenSnooze = schema.sql("finish.undo-claim-then-snooze", ROLLBACK_TO_CLAIM_SAVEPOINT,
                snoozeStatement(Transition.SNOOZE_AFTER_ROLLBACK));
        this.restoreClaimThenSnooze = schema.sql("finish.restore-claim-then-snooze", ROLLBACK_TO_CLAIM_SAVEPOINT,
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
                """);        // a prepared plan made while the table was a few pages long reads the primary key by a sequential scan,
        // which costs the whole heap once dead rows have piled up before the first autovacuum
        this.statisticsOutgrown = schema.sql("maintenance.statistics-outgrown", """
                SELECT pg_relation_size(c.oid) / current_setting('block_size')::bigint >= :min_pages
                   AND pg_relation_size(c.oid) / current_setting('block_size')::bigint > :growth * greatest(c.relpages, 1)
                   AND pg_has_role(c.relowner, 'MEMBER')
                   AND pg_try_advisory_xact_lock(hashtext(:lock))
                FROM pg_class c WHERE c.oid = to_regclass(:table)
                """);
        this.analyze = schema.sql("maintenance.analyze", "ANALYZE {schema}.job");
        this.expireDedupWindows = schema.sql("enqueue.expire-dedup-windows", """
                WITH expired AS (
                    DELETE FROM {schema}.dedup_window WHERE (queue, dedup_key) IN (
                        SELECT queue, dedup_key FROM {schema}.dedup_window WHERE expires_at < now()
                        ORDER BY expires_at LIMIT :limit FOR UPDATE SKIP LOCKED)
                    RETURNING queue
                )
                SELECT count(*) FROM expired
                """);
        this.lookups = new JobLookups(schema);
        this.promoteDue = schema.sql("claim.promote-due", promoteStatement(false, true));
        this.promoteDueOfQueue = schema.sql("claim.promote-due-of-queue", promoteStatement(true, false));
        this.promoteDueOfFairQueue = schema.sql("claim.promote-due-of-fair-queue", promoteStatement(true, true));
        this.claimLeased = schema.sql("claim.lease", claimLeasedWithPromotion(false, LIMIT_PARAMETER));
        this.claimLeasedAfter = schema.sql("claim.lease-after", claimLeasedWithPromotion(true, LIMIT_PARAMETER));
        // the usual size is made now (and checked by the transition table's test with the others)
        fairClaimLeased(DEFAULT_FAIR_SIZE);
        fairClaimAndDelete(DEFAULT_FAIR_SIZE);
        this.chargeFairness = schema.sql("fairness.charge", fairness.chargeStatement());
        this.sweepLock = schema.sql("fairness.sweep-lock", fairness.sweepLockStatement());
        this.sweepSettle = schema.sql("fairness.sweep-settle", fairness.sweepSettleStatement());
        this.activateReadyKeys = schema.sql("fairness.activate-ready-keys", fairness.activateReadyStatement());
        this.adoptKeylessJobs = schema.sql("fairness.adopt-keyless-jobs", fairness.adoptKeylessStatement());
        this.claimAndDelete = schema.sql("claim.and-delete", claimThenSavepointStatement(false, LIMIT_PARAMETER));
        this.claimAndDeleteAfter = schema.sql("claim.and-delete-after",
                claimThenSavepointStatement(true, LIMIT_PARAMETER));
        this.complete = schema.sql("finish.complete", completeStatement(0));
        for (int kinds = 1; kinds < 4; kinds++) {
            this.completeMembers[kinds] = schema.sql("finish.complete:" + kindsName(kinds), completeStatement(kinds));
            this.membersSucceeded[kinds] = schema.sql("finish.succeeded:" + kindsName(kinds), membersSucceededStatement(kinds));
            this.releaseThenMembersSucceeded[kinds] = schema.sql(
                    "finish.release-claim-then-succeeded:" + kindsName(kinds), RELEASE_CLAIM_SAVEPOINT,
                    membersSucceededStatement(kinds));
        }
        this.cancelRunningNodes = schema.sql("finish.cancel-running-nodes", cancelRunningStatement("id = ANY(:ids::bigint[]) AND "
                + Transition.COMPLETE.guard("")));

        this.rescue = schema.sql("maintenance.rescue", rescueStatement(), cancelRunningStatement("""
                id = ANY(ARRAY(SELECT r.id FROM {schema}.job r
                               WHERE r.state = 'running' AND %s
                                 AND (r.lease_until < now()
                                      OR NOT EXISTS (SELECT 1 FROM {schema}.node n WHERE n.id = r.locked_by))
                               ORDER BY r.id FOR UPDATE SKIP LOCKED))""".formatted(Transition.CANCEL_RUNNING.guard("r"))));
        this.release = schema.sql("maintenance.release", releaseStatement(),
                cancelRunningStatement("id = ANY(:ids::bigint[]) AND locked_by = :node"));
        this.extendLease = schema.sql("finish.extend-lease", """
                UPDATE {schema}.job SET lease_until = greatest(lease_until, now() + :lease_ms * interval '1 millisecond')
                WHERE id = :id AND attempts = :attempt AND locked_by = :node AND state = 'running'
                """);
        this.retryDead = schema.sql("maintenance.retry-dead", retryDeadStatement());
        this.readyQueues = schema.sql("claim.ready-queues", """
                SELECT q.queue FROM unnest(:queues::text[]) AS q(queue)
                WHERE EXISTS (SELECT 1 FROM {schema}.job j WHERE j.queue = q.queue AND j.state = 'ready')
                  AND NOT EXISTS (SELECT 1 FROM {schema}.queue_state s WHERE s.queue = q.queue AND s.paused)
                """);
        this.purgeDead = schema.sql("maintenance.purge-dead", deleteDeadStatement(Transition.PURGE,
                "queue = :queue AND state = 'dead' AND (id = ANY(:ids::bigint[]) OR :ids::bigint[] IS NULL) ORDER BY id"));
        this.expireDead = schema.sql("maintenance.expire-dead", deleteDeadStatement(Transition.EXPIRE,
                "state = 'dead' AND coalesce(dead_at, created_at) < now() - :retention_ms * interval '1 millisecond'"));
        this.throttleLock = schema.sql("claim.throttle-lock", "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext(:key))) AS locked");
        this.countRunning = schema.sql("claim.count-running", "SELECT count(*) FROM {schema}.job WHERE queue = :queue AND state = 'running'");
        this.rateWindow = schema.sql("claim.rate-window", """
                INSERT INTO {schema}.queue_rate AS r (queue, window_start, started)
                SELECT :queue, to_timestamp(floor(extract(epoch FROM now()) * 1000 / w) * w / 1000.0), 0
                FROM (SELECT :window_ms::bigint AS w) AS window_length
                ON CONFLICT (queue) DO UPDATE
                    SET started = CASE WHEN r.window_start = excluded.window_start THEN r.started ELSE 0 END,
                        window_start = excluded.window_start
                RETURNING started,
                          ceil(extract(epoch FROM window_start - now()) * 1000)::bigint + :window_ms AS opens_in_ms
                """);
        this.rateStarted = schema.sql("claim.rate-started", "UPDATE {schema}.queue_rate SET started = started + :started WHERE queue = :queue");
        this.findLiveByDedupKey = schema.sql("enqueue.find-live-by-dedup-key", 
                "SELECT id FROM {schema}.job WHERE queue = :queue AND dedup_key = :dedup_key AND state <> 'dead'");
        this.deadIds = schema.sql("maintenance.dead-ids", "SELECT id FROM {schema}.job WHERE queue = :queue AND state = 'dead' ORDER BY id");
        this.deadJobs = schema.sql("maintenance.dead-jobs", deadJobsStatement(true));
        this.deadJobSummaries = schema.sql("maintenance.dead-job-summaries", deadJobsStatement(false));
    }

    /** The catalogue name of an insert statement: its row shape and what it does beside the insert. */
    private static String enqueueName(RowShape shape, boolean notify, boolean windowed, boolean batched, boolean keyed) {
        return "enqueue." + (batched ? "to-batch:" : "") + shape.name().toLowerCase(java.util.Locale.ROOT)
                + (notify ? "+notify" : "") + (windowed ? "+window" : "") + (keyed ? "+keyed" : "");
    }

    /** The catalogue name of the kinds of jobs whose completion cascades. */
    private static String kindsName(int kinds) {
        return switch (kinds) {
            case NODES -> "nodes";
            case MEMBERS -> "members";
            default -> "nodes+members";
        };
    }

    /** A page of dead jobs; without content, payloads are not read and errors keep their first line. */
    private static String deadJobsStatement(boolean content) {
        return """
                SELECT id, queue, attempts, %s AS last_error, %s AS payload, payload_type, created_at
                FROM {schema}.job
                WHERE id = ANY(ARRAY(SELECT id FROM {schema}.job WHERE queue = :queue AND state = 'dead'
                                     ORDER BY id DESC OFFSET :offset LIMIT :limit))
                ORDER BY id DESC
                """.formatted(content ? "last_error" : "split_part(left(last_error, 1000), chr(10), 1)",
                        content ? "payload::text" : "NULL::text");
    }

    // ---- statements, each generated once --------------------------------------------------------------

    /**
     * The insert of new jobs read from the CTE {@code input} (queue, payload, payload_type, headers, priority,
     * due, max_attempts, dedup_key, group_key, timeout_ms and, with dedup windows, dedup_for_ms) as CTEs
     * {@code inserted} (id, queue, state), its counter deltas and, with {@code notify}, {@code notified}: a
     * NOTIFY of the queue delivered at commit, which the final select must reference. The one way a job row
     * comes into being, for sends and recurring ticks alike (and, in the same words, pgqueue.send() in SQL); to
     * follow a WITH clause that defines {@code input}.
     */
    String insertCtes(Counters.Rows rows, boolean notify) {
        return insertCtes(rows, notify, false);
    }

    /** As {@link #insertCtes(Counters.Rows, boolean)}; with {@code windowed}, input rows may carry dedup windows. */
    String insertCtes(Counters.Rows rows, boolean notify, boolean windowed) {
        return insertCtes(rows, notify, windowed, false, false);
    }

    /**
     * As {@link #insertCtes(Counters.Rows, boolean, boolean)}; with {@code batched}, the jobs are members of the
     * batch {@code :batch_id}, which the caller locked open, and the statement carries the batch cascade; with
     * {@code keyed}, the input rows carry {@code fairness_key}, and the statement the fairness cascade.
     */
    private String insertCtes(Counters.Rows rows, boolean notify, boolean windowed, boolean batched, boolean keyed) {
        String columns = (batched ? ", batch_id" : "") + (keyed ? ", fairness_key" : "");
        return Transition.ENQUEUE.tag() + (windowed ? WINDOW_CTE : "") + """
                , inserted AS (
                    INSERT INTO {schema}.job (queue, state, priority, run_at, payload, payload_type, headers,
                                              max_attempts, dedup_key, group_key, timeout_ms%2$s)
                    SELECT queue, CASE WHEN due > now() THEN 'scheduled' ELSE 'ready' END, priority, due,
                           payload::jsonb, payload_type, headers::jsonb, max_attempts, dedup_key, group_key, timeout_ms%3$s
                    FROM input i%1$s
                    ON CONFLICT (queue, dedup_key) WHERE dedup_key IS NOT NULL AND state <> 'dead' DO NOTHING
                    RETURNING id, queue, state%2$s
                )""".formatted(windowed ? """

                    WHERE i.dedup_for_ms IS NULL
                       OR EXISTS (SELECT 1 FROM windowed w WHERE w.queue = i.queue AND w.dedup_key = i.dedup_key)"""
                : "", columns, (batched ? ", :batch_id::bigint" : "") + (keyed ? ", fairness_key" : ""))
                + counters.deltaCte(Transition.ENQUEUE, "inserted", rows) + (batched ? batches.addedCtes("inserted") : "")
                + (keyed ? fairness.activateCte("inserted", "", false) : "")
                + (notify ? """
                , notified AS (
                    SELECT pg_notify(:channel, queue) FROM (SELECT queue FROM inserted LIMIT 1) AS any_row
                )""" : "");
    }

    /** The input CTE of a send: the job rows as parameters of the given shape. */
    private static String inputCte(RowShape shape, boolean keyed) {
        return """
                WITH input AS (
                    SELECT :queue::text AS queue, i.*,
                           coalesce(to_timestamp(i.run_at_ms / 1000.0), now() + i.delay_ms * interval '1 millisecond') AS due
                    FROM %s AS i(payload, payload_type, headers, priority, run_at_ms, delay_ms, max_attempts, dedup_key,
                                 group_key, timeout_ms, dedup_for_ms%s)
                )""".formatted(shape.rows(keyed), keyed ? ", fairness_key" : "");
    }

    private String enqueueStatement(RowShape shape, boolean notify, boolean windowed, boolean batched, boolean keyed) {
        return inputCte(shape, keyed) + insertCtes(shape.counted, notify, windowed, batched, keyed)
                + (notify ? "\nSELECT id FROM inserted LEFT JOIN notified ON true" : "\nSELECT id FROM inserted");
    }

    /**
     * A debounced send: inserts the job, waiting for its quiet window, or, while a job of the key still waits,
     * gives that one the new payload and options and pushes its run-at back. Only inserted rows are counted.
     */
    private String debounceStatement() {
        return inputCte(RowShape.SINGLE, true) + Transition.ENQUEUE.tag() + """
                , upserted AS (
                    INSERT INTO {schema}.job AS j (queue, state, priority, run_at, payload, payload_type, headers,
                                                   max_attempts, group_key, timeout_ms, debounce_key, fairness_key)
                    SELECT queue, 'scheduled', priority, due, payload::jsonb, payload_type, headers::jsonb,
                           max_attempts, group_key, timeout_ms, :debounce_key, fairness_key
                    FROM input
                    ON CONFLICT (queue, debounce_key) WHERE state = 'scheduled' AND debounce_key IS NOT NULL
                    DO UPDATE SET payload = excluded.payload, payload_type = excluded.payload_type,
                                  headers = excluded.headers, priority = excluded.priority, run_at = excluded.run_at,
                                  max_attempts = excluded.max_attempts, group_key = excluded.group_key,
                                  timeout_ms = excluded.timeout_ms
                    RETURNING id, queue, state, (xmax = 0) AS inserted
                ), inserted AS (
                    SELECT id, queue, state FROM upserted WHERE inserted
                )""" + counters.deltaCte(Transition.ENQUEUE, "inserted", Counters.Rows.ONE)
                + "\nSELECT id, inserted FROM upserted";
    }

    /**
     * Promotes due scheduled jobs, of one queue (before its claims) or of all (maintenance). A debounced job's
     * quiet window ends here: it lets go of its key, so that a later send of the key starts a new job and a
     * retry or snooze of this one, back to scheduled, never meets that job in the key's unique index.
     */
    private String promoteStatement(boolean oneQueue, boolean keyed) {
        return Transition.PROMOTE.tag() + """
                WITH promoted AS (
                    UPDATE {schema}.job SET state = 'ready', debounce_key = NULL
                    WHERE id = ANY(ARRAY(SELECT id FROM {schema}.job
                                         WHERE %s state = 'scheduled' AND run_at <= now()
                                         ORDER BY run_at LIMIT %s FOR UPDATE SKIP LOCKED))
                    RETURNING queue%s
                )""".formatted(oneQueue ? "queue = :queue AND" : "",
                        // a queue's promotion (before its claims) always takes as many: a constant, for a generic plan
                        oneQueue ? String.valueOf(PROMOTE_PER_CLAIM) : ":promote_limit", keyed ? ", fairness_key" : "")
                + counters.deltaCte(Transition.PROMOTE, "promoted", Counters.Rows.MANY)
                + (keyed ? fairness.activateCte("promoted", "", false) : "") + "\nSELECT count(*) FROM promoted";
    }

    /** A LEASE claim's round trip: the queue's due jobs promoted, then the claim. */
    private String[] claimLeasedWithPromotion(boolean after, String limit) {
        return new String[] { promoteStatement(true, false), claimLeasedStatement(after, limit) };
    }

    /**
     * The claim statement of this size ({@code name:size}), with the size written in, made on first use; or the
     * parameterized one past the most sizes.
     */
    private Sql sized(Map<Integer, Sql> bySize, int limit, Sql parameterized,
            java.util.function.Function<String, String[]> statementOfLimit) {
        Sql sql = bySize.get(limit);
        if (sql != null) {
            return sql;
        }
        if (bySize.size() >= MOST_SIZED_STATEMENTS) {
            return parameterized;
        }
        return bySize.computeIfAbsent(limit, (size) -> schema.sql(parameterized.name() + ":" + size,
                statementOfLimit.apply(Integer.toString(size))));
    }

    private String claimLeasedStatement(boolean after, String limit) {
        return Transition.CLAIM_LEASE.tag() + """
                WITH claimed AS (
                    UPDATE {schema}.job j
                    %s
                    WHERE j.id = ANY(ARRAY(%s))
                      AND %s
                      %s
                    %s
                )""".formatted(LEASE_SET, readyIds(after, limit), Transition.CLAIM_LEASE.guard("j"),
                claimCommit, LEASE_RETURNING) + counters.deltaCte(Transition.CLAIM_LEASE, "claimed", Counters.Rows.MANY)
                + "\n" + CLAIMED_COLUMNS;
    }

    private Sql fairClaimLeased(FairSize size) {
        return claimFairLeased.computeIfAbsent(size, (s) -> schema.sql("claim.fair-lease:" + s.most() + "-of-" + s.keys(), fairClaimLeasedStatement(s)));
    }

    private Sql fairClaimAndDelete(FairSize size) {
        return claimFairAndDelete.computeIfAbsent(size,
                (s) -> schema.sql("claim.fair-and-delete:" + s.most() + "-of-" + s.keys(), "SAVEPOINT " + CLAIM_SAVEPOINT,
                        fairClaimAndDeleteStatement(s)));
    }

    /** The fair LEASE claim: the keys' shares ({@link FairnessCascade}), then the claim of the jobs picked. */
    private String fairClaimLeasedStatement(FairSize size) {
        return Transition.CLAIM_LEASE.tag() + fairness.leasedCtes(size.most(), size.keys()) + """
                , fair_emptied AS (
                    SELECT key FROM fair_charged WHERE emptied
                ), claimed AS (
                    UPDATE {schema}.job j
                    %s
                    WHERE j.id = ANY(ARRAY(SELECT id FROM fair_picked))
                      AND %s
                      %s
                    %s
                )""".formatted(LEASE_SET, Transition.CLAIM_LEASE.guard("j"), claimCommit, LEASE_RETURNING)
                + counters.deltaCte(Transition.CLAIM_LEASE, "claimed", Counters.Rows.MANY) + "\n" + FAIR_CLAIMED_COLUMNS;
    }

    /**
     * A TRANSACTIONAL claim's round trip: the claim, at the transaction's top level, then the savepoint that the
     * handlers' writes follow (rolling back to it keeps the claim, which {@link Transition#CLAIM_RESTORE} then
     * undoes).
     */
    private String[] claimThenSavepointStatement(boolean after, String limit) {
        return new String[] { claimAndDeleteStatement(after, limit), "SAVEPOINT " + CLAIM_SAVEPOINT };
    }

    private String claimAndDeleteStatement(boolean after, String limit) {
        return Transition.CLAIM_DELETE.tag() + """
                WITH claimed AS (
                    DELETE FROM {schema}.job j
                    WHERE j.id = ANY(ARRAY(%s))
                    %s, %s AS rest
                )""".formatted(readyIds(after, limit), DELETE_RETURNING, REST_OF_ROW) + history.archiveCte("claimed", false)
                + counters.deltaCte(Transition.CLAIM_DELETE, "claimed", Counters.Rows.MANY) + "\n"
                + CLAIMED_WITH_RESTS;
    }

    /** The fair TRANSACTIONAL claim: the keys' shares, then the deletion of the jobs picked. */
    private String fairClaimAndDeleteStatement(FairSize size) {
        return Transition.CLAIM_DELETE.tag() + fairness.deletedCtes(size.most(), size.keys()) + """
                , claimed AS (
                    DELETE FROM {schema}.job j
                    WHERE j.id = ANY(ARRAY(SELECT id FROM fair_picked))
                    %s
                )""".formatted(DELETE_RETURNING) + history.archiveCte("claimed", false)
                + counters.deltaCte(Transition.CLAIM_DELETE, "claimed", Counters.Rows.MANY) + "\n" + FAIR_CLAIMED_COLUMNS;
    }

    /**
     * Deletes finished jobs that this node still owns in the attempt it ran. The (id, attempt) pairs are
     * checked through a hashed sub-plan (the {@code IS TRUE} keeps the planner from turning it into a join,
     * which it would plan as a nested loop over every pair when its statistics still say "no running jobs"
     * during a backlog). No {@code state = 'running'} either: only running jobs have an owner, and that
     * predicate would invite the partial lease index.
     */
    private String completeStatement(int kinds) {
        // a node or member whose cancellation was requested is left to CANCEL_RUNNING (completeMembers runs it):
        // these variants' cascades are the light ones of jobs that completed
        boolean workflows = kinds != 0;
        String statement = Transition.COMPLETE.tag() + WorkflowCascade.with(workflows) + """
                 done AS (
                    DELETE FROM {schema}.job j
                    WHERE j.id = ANY(:ids::bigint[]) AND %s%s
                    RETURNING %s,
                              CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'completed' END AS state
                )""".formatted(Transition.COMPLETE.guard("j"), workflows ? " AND NOT j.cancel_requested" : "",
                FINISHED_COLUMNS) + history.archiveCte("done", true)
                + counters.deltaCte(Transition.COMPLETE, "done", Counters.Rows.MANY);
        return workflows ? completedCascades(statement, "done", kinds) : statement + "\nSELECT count(*) FROM done";
    }

    /**
     * The success of TRANSACTIONAL nodes and members at the end of their handlers' transaction (the claim deleted
     * their rows), given as {@code :ids} with their {@code :workflow_ids} and {@code :batch_ids}.
     */
    private String membersSucceededStatement(int kinds) {
        return completedCascades("""
                WITH RECURSIVE succeeded AS (
                    SELECT * FROM unnest(:ids::bigint[], :workflow_ids::bigint[], :batch_ids::bigint[])
                                  AS s(id, workflow_id, batch_id)
                )""", "succeeded", kinds);
    }

    /**
     * {@code statement} (a WITH RECURSIVE clause whose CTE {@code changed} completed jobs) with the cascades of
     * {@code kinds}.
     */
    private String completedCascades(String statement, String changed, int kinds) {
        String ctes = (((kinds & NODES) != 0) ? cascade.completedCtes(changed) : "")
                + (((kinds & MEMBERS) != 0) ? batches.completedCtes(changed) : "");
        String notified = (((kinds & NODES) != 0) ? WorkflowCascade.NOTIFIED : "")
                + (((kinds & MEMBERS) != 0) ? BatchCascade.NOTIFIED : "");
        return statement + ctes + "\nSELECT count(*)" + notified + " FROM " + changed;
    }

    /** The variant index of jobs with these workflow and batch ids (null where none). */
    private static int kinds(@Nullable Long[] workflowIds, @Nullable Long[] batchIds) {
        return (Arrays.stream(workflowIds).anyMatch(Objects::nonNull) ? NODES : 0)
                | (Arrays.stream(batchIds).anyMatch(Objects::nonNull) ? MEMBERS : 0);
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
        String statement = Transition.CANCEL_RUNNING.tag() + WorkflowCascade.with(workflows) + """
                 cancelled AS (
                    DELETE FROM {schema}.job j
                    WHERE %s AND j.state = 'running' AND %s
                    RETURNING %s, 'cancelled' AS state
                )""".formatted(filter, Transition.CANCEL_RUNNING.guard("j"), FINISHED_COLUMNS) + history.archiveCte("cancelled", false)
                + counters.deltaCte(Transition.CANCEL_RUNNING, "cancelled", Counters.Rows.MANY);
        return workflows ? statement + cascades(Transition.CANCEL_RUNNING, "cancelled", null)
                + "\nSELECT count(*)" + NOTIFIED + " FROM cancelled"
                : statement + "\nSELECT count(*) FROM cancelled";
    }

    /**
     * Cancels jobs by id: the scheduled and ready ones finish as cancelled at once (releasing their dedup
     * keys, windows included, and their groups); of the running ones, the cancellation is requested. Rows
     * another transaction holds (a TRANSACTIONAL handler running them) are left alone. Returns each job it
     * did something to, with what.
     */
    private String cancelStatement(String ids, boolean requestRunning) {
        return Transition.CANCEL.tag() + """
                WITH RECURSIVE cancelled AS (
                    DELETE FROM {schema}.job j
                    WHERE j.id = ANY(ARRAY(SELECT id FROM {schema}.job WHERE id = ANY(%2$s)
                                           AND state IN ('waiting', 'scheduled', 'ready') FOR UPDATE SKIP LOCKED))
                      AND j.state IN ('waiting', 'scheduled', 'ready')
                    RETURNING %s, j.state AS from_state, 'cancelled' AS state
                ), windows_released AS (
                    DELETE FROM {schema}.dedup_window w USING cancelled c
                    WHERE w.queue = c.queue AND w.dedup_key = c.dedup_key
                )""".formatted(FINISHED_COLUMNS, ids) + (requestRunning ? """
                , requested AS (
                    UPDATE {schema}.job SET cancel_requested = true
                    WHERE id = ANY(%s) AND state = 'running'
                    RETURNING id
                )""".formatted(ids) : "") + history.archiveCte("cancelled", false)
                + counters.deltaCte(Transition.CANCEL, "cancelled", Counters.Rows.MANY)
                + cascades(Transition.CANCEL, "cancelled", null) + """

                SELECT id, true AS finished%s FROM cancelled""".formatted(NOTIFIED)
                + (requestRunning ? "\nUNION ALL SELECT id, false, 0, 0 FROM requested" : "");
    }

    /**
     * Puts a job off without counting the attempt: back to scheduled (or ready without a delay). A LEASE job
     * must still be running under this node in that attempt and not be cancel-requested (the statement that
     * follows finishes such a job); a TRANSACTIONAL job is ready again after its rollback. The delay counts from
     * this statement, not from its transaction's start: a TRANSACTIONAL claim's transaction began before its
     * handlers ran, however long they took.
     */
    private String snoozeStatement(Transition transition) {
        return transition.tag() + """
                WITH snoozed AS (
                    UPDATE {schema}.job
                    SET state = CASE WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
                        run_at = statement_timestamp() + :delay_ms::bigint * interval '1 millisecond',
                        attempts = :attempt - 1, locked_by = NULL, lease_until = NULL, debounce_key = NULL
                    WHERE id = :id AND %s
                    RETURNING queue, state
                )""".formatted(transition.guard(""))
                + counters.deltaCte(transition, "snoozed", Counters.Rows.MANY) + "\nSELECT count(*) FROM snoozed";
    }

    /**
     * Takes a TRANSACTIONAL claim back inside its transaction, after the rollback to the savepoint set after it
     * (which undoes the handlers' writes; the statement before this one): the claimed rows are put back exactly as the claim deleted them (from the
     * claimed jobs and the rest of each row, {@link #RESTORED_FROM_REST}), their history rows removed and the
     * claim's deltas taken back. No other transaction saw them gone, and none can take them before this
     * transaction records why they did not complete.
     */
    private String restoreClaimStatement() {
        List<String> rest = new ArrayList<>();
        int element = 0;
        for (Map.Entry<String, String> column : RESTORED_FROM_REST.entrySet()) {
            rest.add("(r.rest::json ->> %d)::%s AS %s".formatted(element++, column.getValue(), column.getKey()));
        }
        List<String> columns = new ArrayList<>(RESTORED_FROM_JOB);
        columns.add("state");
        columns.addAll(RESTORED_FROM_REST.keySet());
        return Transition.CLAIM_RESTORE.tag() + """
                WITH restored AS (
                    SELECT r.id, r.queue, r.payload::jsonb AS payload, r.payload_type, r.headers::jsonb AS headers,
                           r.attempts, r.created_at::timestamptz AS created_at, r.run_at::timestamptz AS run_at,
                           r.timeout_ms, r.workflow_id, r.batch_id, r.fairness_key, 'ready' AS state,
                           %s
                    FROM unnest(:r_ids::bigint[], :r_queues::text[], :r_payloads::text[], :r_payload_types::text[],
                                :r_headers::text[], :r_attempts::int[], :r_created_ats::text[], :r_run_ats::text[],
                                :r_timeouts::bigint[], :r_workflow_ids::bigint[], :r_batch_ids::bigint[],
                                :r_fairness_keys::text[], :r_rests::text[])
                         AS r(id, queue, payload, payload_type, headers, attempts, created_at, run_at, timeout_ms,
                              workflow_id, batch_id, fairness_key, rest)
                )""".formatted(String.join(",\n                       ", rest)) + history.unarchiveCte("restored")
                + counters.deltaCte(Transition.CLAIM_RESTORE, "restored", Counters.Rows.MANY) + """

                INSERT INTO {schema}.job (%s) OVERRIDING SYSTEM VALUE
                SELECT %s FROM restored""".formatted(String.join(", ", columns), String.join(", ", columns));
    }

    /**
     * Records a failed attempt: dead, or back to scheduled/ready after the delay. A LEASE job must still be
     * running under this node in that attempt; a TRANSACTIONAL job is ready again after its rollback, with
     * the attempt not yet counted. The backoff and the time of death count from this statement (as for a snooze).
     */
    private String failStatement(Transition transition, boolean workflows) {
        String statement = transition.tag() + WorkflowCascade.with(workflows) + """
                 failed AS (
                    UPDATE {schema}.job
                    SET state = CASE WHEN :dead::boolean THEN 'dead'
                                     WHEN :delay_ms::bigint > 0 THEN 'scheduled' ELSE 'ready' END,
                        run_at = CASE WHEN :dead::boolean THEN run_at
                                      ELSE statement_timestamp() + :delay_ms::bigint * interval '1 millisecond' END,
                        attempts = :attempt, max_attempts = :max_attempts,
                        locked_by = NULL, lease_until = NULL, last_error = :error, debounce_key = NULL,
                        dead_at = CASE WHEN :dead::boolean THEN statement_timestamp() END
                    WHERE id = :id AND %s
                    RETURNING id, queue, state, workflow_id, batch_id
                )""".formatted(transition.guard(""))
                + counters.deltaCte(transition, "failed", Counters.Rows.MANY);
        return workflows ? statement + cascades(transition, "failed", null)
                + "\nSELECT count(*)" + NOTIFIED + " FROM failed"
                : statement + "\nSELECT count(*) FROM failed";
    }

    /**
     * Releases running jobs whose lease expired or whose node stopped heart-beating, and forgets stale nodes.
     * The lost attempt stays counted: a job out of attempts goes dead instead. Every node runs this
     * concurrently, so it never waits for a row another statement holds ({@code SKIP LOCKED}): two rescuers
     * cannot deadlock, and a row being acknowledged right now is left to its owner.
     */
    private String rescueStatement() {
        return Transition.RESCUE.tag() + """
                WITH RECURSIVE stale AS (
                    DELETE FROM {schema}.node
                    WHERE id = ANY(ARRAY(SELECT id FROM {schema}.node
                                         WHERE heartbeat_at < now() - :node_timeout_ms * interval '1 millisecond'
                                         FOR UPDATE SKIP LOCKED))
                    RETURNING id
                ), rescued AS (
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
                    RETURNING j.id, j.queue, j.state, j.workflow_id, j.batch_id
                )""".formatted(Transition.RESCUE.guard("r")) + counters.deltaCte(Transition.RESCUE, "rescued", Counters.Rows.MANY)
                + cascades(Transition.RESCUE, "rescued", null)
                + "\nSELECT count(*)" + NOTIFIED + " FROM rescued";
    }

    private String releaseStatement() {
        return Transition.RELEASE.tag() + """
                WITH released AS (
                    UPDATE {schema}.job SET state = 'ready', attempts = attempts - 1, locked_by = NULL, lease_until = NULL
                    WHERE id = ANY(:ids::bigint[]) AND %s
                    RETURNING queue
                )""".formatted(Transition.RELEASE.guard("")) + counters.deltaCte(Transition.RELEASE, "released", Counters.Rows.MANY)
                + "\nSELECT count(*) FROM released";
    }

    /**
     * Gives dead jobs of a queue (one, or all when the id is null) a fresh set of attempts. A dead job whose
     * dedup key is held by a live job stays dead, and of several dead jobs sharing a key only the newest is
     * retried.
     */
    private String retryDeadStatement() {
        return Transition.RETRY_DEAD.tag() + """
                WITH RECURSIVE retried AS (
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
                    RETURNING j.id, j.queue, j.workflow_id, j.batch_id, j.fairness_key
                )""" + counters.deltaCte(Transition.RETRY_DEAD, "retried", Counters.Rows.MANY)
                + cascades(Transition.RETRY_DEAD, "retried", null) + fairness.activateCte("retried", "", false)
                + "\nSELECT count(*)" + NOTIFIED + " FROM retried";
    }

    /** Deletes up to a batch of dead jobs matching a filter (admin purge, retention). */
    private String deleteDeadStatement(Transition transition, String filter) {
        return transition.tag() + """
                WITH RECURSIVE deleted AS (
                    DELETE FROM {schema}.job WHERE id = ANY(ARRAY(
                        SELECT id FROM {schema}.job WHERE %s LIMIT :limit FOR UPDATE SKIP LOCKED))
                    RETURNING id, queue, workflow_id, batch_id
                )""".formatted(filter) + counters.deltaCte(transition, "deleted", Counters.Rows.MANY)
                + cascades(transition, "deleted", (transition == Transition.PURGE) ? "purged while dead"
                        : "expired while dead")
                + "\nSELECT count(*)" + NOTIFIED + " FROM deleted";
    }

    /** The workflow and batch cascades of a transition's statement (see {@link WorkflowCascade#ctes}). */
    private String cascades(Transition transition, String changed, @Nullable String cause) {
        return cascade.ctes(transition, changed, cause) + batches.ctes(transition, changed);
    }

    // ---- transitions ---------------------------------------------------------------------------------

    @Override
    public List<Long> enqueue(String queue, List<NewJob> jobs, boolean notify) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        RowShape shape = RowShape.of(jobs);
        return jdbc.query(enqueue.get(shape)[variant(jobs, notify)], (params) -> {
            shape.bind(params, jobs);
            params.text("queue", queue);
            if (notify) {
                params.text("channel", schema.notifyChannel());
            }
        }, (row) -> row.getLong(1));
    }

    @Override
    public List<Long> enqueueToBatch(String queue, long batchId, List<NewJob> jobs, boolean notify) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        RowShape shape = RowShape.of(jobs);
        return jdbc.query(enqueueToBatch.get(shape)[variant(jobs, notify)], (params) -> {
            shape.bind(params, jobs);
            params.text("queue", queue).int8("batch_id", batchId);
            if (notify) {
                params.text("channel", schema.notifyChannel());
            }
        }, (row) -> row.getLong(1));
    }

    /** The insert variant: with NOTIFY, with dedup windows, with fairness keys (each a bit). */
    private static int variant(List<NewJob> jobs, boolean notify) {
        boolean windowed = false;
        boolean keyed = false;
        // a loop, not two streams: this runs on every send
        for (NewJob job : jobs) {
            windowed |= job.dedupForMillis() != null;
            keyed |= job.fairnessKey() != null;
        }
        return (notify ? 1 : 0) + (windowed ? 2 : 0) + (keyed ? 4 : 0);
    }

    @Override
    public DebouncedSend enqueueDebounced(String queue, NewJob job) {
        String key = Objects.requireNonNull(job.debounceKey(), "debounce key");
        List<DebouncedSend> sent = jdbc.query(enqueueDebounced, (params) -> {
            RowShape.SINGLE.bind(params, List.of(job));
            params.text("queue", queue).text("debounce_key", key).text("fairness_key", job.fairnessKey());
        }, (row) -> new DebouncedSend(row.getLong("id"), row.getBoolean("inserted")));
        return sent.get(0);
    }

    @Override
    public int promoteDue(int limit) {
        return (int) jdbc.count(promoteDue, (params) -> params.int4("promote_limit", limit));
    }

    @Override
    public int promoteDue(String queue) {
        return (int) jdbc.count(promoteDueOfQueue,
                (params) -> params.text("queue", queue));
    }

    @Override
    public Claim claimLeased(ClaimRequest request) {
        boolean after = request.after() != null;
        Sql sql = after ? sized(claimLeasedAfterBySize, request.limit(), claimLeasedAfter,
                (limit) -> claimLeasedWithPromotion(true, limit))
                : sized(claimLeasedBySize, request.limit(), claimLeased, (limit) -> claimLeasedWithPromotion(false, limit));
        return promoteThenClaim(sql, request, (params) -> bindClaim(params, request), JdbcJobRepository::claimed);
    }

    /** As {@link #claimLeased}, its limit a parameter: a throttled claim's room differs from claim to claim. */
    private Claim claimLeasedWithinRoom(ClaimRequest request) {
        return promoteThenClaim((request.after() != null) ? claimLeasedAfter : claimLeased, request,
                (params) -> bindClaim(params, request), JdbcJobRepository::claimed);
    }

    /**
     * Runs a LEASE claim's two statements in one round trip and reads their two results: how many jobs the first
     * promoted, then the claimed rows.
     */
    private Claim promoteThenClaim(Sql sql, ClaimRequest request, Jdbc.Binder binder, ClaimReader reader) {
        return leaseClaim(sql, request, binder, (statement) -> {
            statement.execute();
            long promoted;
            try (ResultSet rows = statement.getResultSet()) {
                promoted = rows.next() ? rows.getLong(1) : 0;
            }
            if (!statement.getMoreResults()) {
                throw new IllegalStateException("A claim returned no claimed rows");
            }
            try (ResultSet rows = statement.getResultSet()) {
                return reader.read(rows, promoted);
            }
        });
    }

    /** Runs a LEASE claim's round trip on a connection, bound with the node and its lease. */
    private Claim leaseClaim(Sql sql, ClaimRequest request, Jdbc.Binder binder, Jdbc.StatementWork<Claim> work) {
        UUID node = Objects.requireNonNull(request.node(), "A LEASE claim needs a node");
        return jdbc.execute((Connection connection) -> jdbc.run(connection, sql, (params) -> {
            binder.bind(params);
            params.uuid("node", node).int8("lease_ms", request.leaseMillis());
        }, work));
    }

    /** Reads a claim's rows. */
    @FunctionalInterface
    private interface ClaimReader {

        Claim read(ResultSet rows, long promoted) throws SQLException;
    }

    /** A rate's current window: the jobs started in it, and how long until the next one opens. */
    private record RateWindow(long started, Duration opensIn) {
    }

    @Override
    public Claim claimThrottled(ClaimRequest request, @Nullable Integer maxRunning, @Nullable RateLimit rate,
            @Nullable FairShares shares) {
        Claim claim = transactions.execute((status) -> {
            jdbc.count(throttleLock,
                    (params) -> params.text("key", "pgqueue.throttle." + schema.name() + "." + request.queue()));
            int room = request.limit();
            if (maxRunning != null) {
                room = maxRunning - (int) jdbc.count(countRunning, (params) -> params.text("queue", request.queue()));
            }
            int permits = request.limit();
            Duration windowOpensIn = null;
            if (rate != null) {
                RateWindow window = jdbc.query(rateWindow,
                        (params) -> params.text("queue", request.queue()).int8("window_ms", rate.window().toMillis()),
                        (row) -> new RateWindow(row.getLong("started"), Duration.ofMillis(Math.max(0, row.getLong("opens_in_ms")))))
                    .get(0);
                permits = rate.permits() - (int) window.started();
                windowOpensIn = window.opensIn();
            }
            int allowed = Math.min(request.limit(), Math.min(room, permits));
            Claim claimed = (allowed <= 0) ? Claim.NONE
                    : (shares != null) ? claimFairLeased(request.withLimit(allowed), shares)
                    : claimLeasedWithinRoom(request.withLimit(allowed));
            int taken = claimed.jobs().size();
            if (rate != null && taken > 0) {
                jdbc.update(rateStarted, (params) -> params.int4("started", taken).text("queue", request.queue()));
            }
            // cut short by the cap or the rate: every job they allowed was taken (or they allowed none)
            boolean tookAllAllowed = taken >= Math.max(allowed, 0);
            return claimed.withThrottle(new Claim.Throttle(tookAllAllowed && room <= permits && room < request.limit(),
                    (tookAllAllowed && permits <= room && permits < request.limit()) ? windowOpensIn : null));
        });
        return (claim != null) ? claim : Claim.NONE;
    }

    /**
     * Promotes the queue's due jobs, then claims. Unlike a plain claim's, the promotion is a transaction of its
     * own, committed before the claim: a promotion that makes a drained key ready again locks that key's row, and
     * held through the claim (which locks the keys it charges in key order) it would be a second pass in another
     * order, in which two claimers can deadlock. Committed first, the claim holds no key row before its ordered
     * pass (but its capped keys, which no other claim waits for: a claim that cannot lock one skips it). Inside a
     * throttled claim's transaction both run in it: those claims take turns.
     */
    @Override
    public Claim claimFairLeased(ClaimRequest request, FairShares shares) {
        long promoted = promoteDueFair(request.queue());
        return leaseClaim(fairClaimLeased(size(request, shares)), request,
                (params) -> bindFairClaim(params, request, shares), (statement) -> {
                    statement.execute();
                    try (ResultSet rows = statement.getResultSet()) {
                        return ClaimedRows.fairlyClaimed(rows, promoted);
                    }
                });
    }

    @Override
    public Claim claimFairAndDelete(ClaimRequest request, FairShares shares) {
        // the keys' charges are part of the claim's statement: the savepoint comes first, so that rolling back to
        // it refunds them with the jobs
        return transactionalClaim(fairClaimAndDelete(size(request, shares)), (params) -> {
            bindFairClaim(params, request, shares);
            params.text("fair_lock", "pgqueue.fair." + schema.name() + "." + request.queue() + ".");
        }, (rows, promoted) -> ClaimedRows.fairlyClaimed(rows, promoted).withUndo(ClaimUndo.SAVEPOINT));
    }

    /** The statement size of a claim: up to the container's batch (a claim asks for at most that). */
    private static FairSize size(ClaimRequest request, FairShares shares) {
        return new FairSize(Math.max(request.limit(), shares.mostPerClaim()), shares.keysPerClaim());
    }

    private static void bindFairClaim(Params params, ClaimRequest request, FairShares shares) throws SQLException {
        params.text("queue", request.queue())
            .int4("limit", request.limit())
            .int4("default_max_attempts", request.defaultMaxAttempts())
            .bool("failures_block", request.groupFailuresBlock());
        shares.bind(params);
    }

    @Override
    public void chargeFairness(String queue, FairShares shares, Map<String, Integer> taken, List<String> emptied) {
        if (taken.isEmpty()) {
            return;
        }
        java.util.TreeMap<String, Integer> sorted = new java.util.TreeMap<>(taken);
        jdbc.update(chargeFairness, (params) -> {
            params.text("queue", queue)
                .array("keys", "text", sorted.keySet().toArray())
                .array("counts", "int4", sorted.values().toArray())
                .array("emptied", "text", emptied.toArray());
            shares.bind(params);
        });
    }

    @Override
    public int promoteDueFair(String queue) {
        return (int) jdbc.count(promoteDueOfFairQueue,
                (params) -> params.text("queue", queue));
    }

    @Override
    public int sweepFairness(String queue) {
        Integer swept = transactions.execute((status) -> {
            int marked = jdbc.update(sweepLock, (params) -> params.text("queue", queue));
            return (marked == 0) ? 0 : jdbc.update(sweepSettle, (params) -> params.text("queue", queue));
        });
        return (swept != null) ? swept : 0;
    }

    @Override
    public int activateReadyKeys(String queue, String keylessJobsKey) {
        // jobs sent without a key (pgqueue.send() without p_fairness_key, an application that does not know the
        // queue is fair) take the default key first, in a statement of their own: the activation then sees them
        jdbc.count(adoptKeylessJobs,
                (params) -> params.text("queue", queue).text("key", keylessJobsKey));
        return (int) jdbc.count(activateReadyKeys, (params) -> params.text("queue", queue));
    }

    @Override
    public Claim claimAndDelete(ClaimRequest request) {
        boolean after = request.after() != null;
        Sql sql = after ? sized(claimAndDeleteAfterBySize, request.limit(), claimAndDeleteAfter,
                (limit) -> claimThenSavepointStatement(true, limit))
                : sized(claimAndDeleteBySize, request.limit(), claimAndDelete,
                        (limit) -> claimThenSavepointStatement(false, limit));
        return transactionalClaim(sql, (params) -> bindClaim(params, request), JdbcJobRepository::claimedWithRests);
    }

    /** Runs a TRANSACTIONAL claim with its savepoint (before or after it), and reads the claimed rows. */
    private Claim transactionalClaim(Sql sql, Jdbc.Binder binder, ClaimReader reader) {
        Claim claim = jdbc.execute((Connection connection) -> jdbc.run(connection, sql, binder, (statement) -> {
            if (!statement.execute() && !statement.getMoreResults()) {
                throw new IllegalStateException("A claim returned no claimed rows");
            }
            try (ResultSet rows = statement.getResultSet()) {
                return reader.read(rows, 0);
            }
        }));
        TransactionalClaims.claimed(jdbc.dataSource(), claim.jobs());
        return claim;
    }

    /** The claimed rows and, to restore them if the handlers' transaction must take the claim back, their rests. */
    private static Claim claimedWithRests(ResultSet rows, long promoted) throws SQLException {
        List<String> rests = new ArrayList<>();
        Claim claim = ClaimedRows.claimed(rows, promoted, rests);
        return claim.withUndo(ClaimUndo.restoring(claim.jobs(), rests));
    }

    private static void bindClaim(Params params, ClaimRequest request) throws SQLException {
        if (params.expects("limit")) {
            // a parameter only in the statements whose limit varies claim by claim (a throttled claim's room)
            params.int4("limit", request.limit());
        }
        params.text("queue", request.queue())
            .int4("default_max_attempts", request.defaultMaxAttempts())
            .bool("failures_block", request.groupFailuresBlock());
        ClaimCursor after = request.after();
        if (after != null) {
            params.int4("after_priority", after.priority())
                .timestamp("after_run_at", after.runAt())
                .int8("after_id", after.id());
        }
    }

    /** The claimed rows, and the last of them in claim order. */
    private static Claim claimed(ResultSet rows, long promoted) throws SQLException {
        return ClaimedRows.claimed(rows, promoted, null);
    }

    @Override
    public int complete(UUID node, long[] ids, int[] attempts, @Nullable String[] outputs) {
        return (int) jdbc.count(complete, (params) -> {
            params.int8Array("ids", ids).uuid("node", node).int4Array("attempts", attempts);
            if (history.enabled()) {
                params.array("outputs", "text", outputs);
            }
        });
    }

    @Override
    public int completeMembers(UUID node, long[] ids, int[] attempts, @Nullable String[] outputs,
            @Nullable Long[] workflowIds, @Nullable Long[] batchIds) {
        int kinds = kinds(workflowIds, batchIds);
        Sql statement = completeMembers[(kinds == 0) ? NODES | MEMBERS : kinds];
        int completed = (int) jdbc.count(statement, (params) -> {
            params.int8Array("ids", ids).uuid("node", node).int4Array("attempts", attempts);
            // outputs are kept for workflow nodes, and in the history when it is on
            if (statement.parameterNames().contains("outputs")) {
                params.array("outputs", "text", outputs);
            }
        });
        if (completed == ids.length) {
            return completed;
        }
        // cancel-requested nodes finish as cancelled, with the whole cascade (rows rescued meanwhile are not ours)
        return completed + (int) jdbc.count(cancelRunningNodes,
                (params) -> params.int8Array("ids", ids).uuid("node", node).int4Array("attempts", attempts));
    }

    @Override
    public void membersSucceeded(long[] ids, @Nullable Long[] workflowIds, @Nullable Long[] batchIds,
            @Nullable String[] outputs, boolean releaseClaimSavepoint) {
        int kinds = kinds(workflowIds, batchIds);
        int variant = (kinds == 0) ? NODES | MEMBERS : kinds;
        Sql statement = releaseClaimSavepoint ? releaseThenMembersSucceeded[variant] : membersSucceeded[variant];
        jdbc.countAll(statement, (params) -> {
            params.int8Array("ids", ids).array("workflow_ids", "int8", workflowIds).array("batch_ids", "int8", batchIds);
            if (statement.parameterNames().contains("outputs")) {
                params.array("outputs", "text", outputs);
            }
        });
    }

    @Override
    public boolean fail(UUID node, FailureUpdate failure) {
        return failed(fail[failure.member() ? 1 : 0], failure, (params) -> params.uuid("node", node));
    }

    @Override
    public boolean failAfterRollback(FailureUpdate failure, ClaimUndo undo) {
        int variant = failure.member() ? 1 : 0;
        return failed(undoing(undo, restoreClaimThenFail[variant], undoClaimThenFail[variant], failAfterRollback[variant]),
                failure, (params) -> bindRestore(params, undo));
    }

    /** Of a record's statements after a TRANSACTIONAL rollback, the one that first takes the claim back as needed. */
    private static Sql undoing(ClaimUndo undo, Sql restoringClaim, Sql rollingBackClaim, Sql alone) {
        return undo.restores() ? restoringClaim : undo.rollsBack() ? rollingBackClaim : alone;
    }

    /** Binds the claimed rows to a statement that restores them. */
    private static void bindRestore(Params params, ClaimUndo undo) throws SQLException {
        if (!undo.restores()) {
            return;
        }
        List<ClaimedJob> claimed = undo.claimed();
        params.int8Array("r_ids", claimed.stream().mapToLong(ClaimedJob::id).toArray())
            .array("r_queues", "text", claimed.stream().map(ClaimedJob::queue).toArray())
            .array("r_payloads", "text", claimed.stream().map(ClaimedJob::payloadJson).toArray())
            .array("r_payload_types", "text", claimed.stream().map(ClaimedJob::payloadType).toArray())
            .array("r_headers", "text", claimed.stream().map(ClaimedJob::headersJson).toArray())
            .int4Array("r_attempts", claimed.stream().mapToInt((job) -> job.attempt() - 1).toArray())
            .array("r_created_ats", "text", claimed.stream().map((job) -> job.enqueuedAt().toString()).toArray())
            .array("r_run_ats", "text", claimed.stream().map((job) -> job.dueAt().toString()).toArray())
            .array("r_timeouts", "int8", claimed.stream().map(ClaimedJob::timeoutMillis).toArray())
            .array("r_workflow_ids", "int8", claimed.stream().map(ClaimedJob::workflowId).toArray())
            .array("r_batch_ids", "int8", claimed.stream().map(ClaimedJob::batchId).toArray())
            .array("r_fairness_keys", "text", claimed.stream().map(ClaimedJob::fairnessKey).toArray())
            .array("r_rests", "text", undo.rests().toArray());
    }

    /** Records a failure by {@code sql}, binding the failure and what {@code also} binds (ownership, restored rows). */
    private boolean failed(Sql sql, FailureUpdate failure, Jdbc.Binder also) {
        long delayMillis = (failure.retryDelay() != null) ? failure.retryDelay().toMillis() : 0L;
        return jdbc.countAll(sql, (params) -> {
            params.bool("dead", failure.dead())
                .int8("delay_ms", delayMillis)
                .int4("attempt", failure.attempt())
                .int4("max_attempts", failure.maxAttempts())
                .text("error", failure.error())
                .int8("id", failure.jobId());
            also.bind(params);
        }) > 0;
    }

    @Override
    public boolean snooze(UUID node, long id, int attempt, Duration delay, boolean member) {
        return jdbc.countAll(snooze[member ? 1 : 0], (params) -> leasedAttempt(params, node, id, attempt).int8("delay_ms", delay.toMillis()))
                > 0;
    }

    /** Binds the (node, id, attempt) that a statement on one LEASE attempt checks ownership by. */
    private static Params leasedAttempt(Params params, UUID node, long id, int attempt) throws SQLException {
        return params.int8("id", id).int4("attempt", attempt).uuid("node", node);
    }

    @Override
    public boolean snoozeAfterRollback(long id, int attempt, Duration delay, ClaimUndo undo) {
        return jdbc.countAll(undoing(undo, restoreClaimThenSnooze, undoClaimThenSnooze, snoozeAfterRollback), (params) -> {
            params.int8("delay_ms", delay.toMillis()).int4("attempt", attempt).int8("id", id);
            bindRestore(params, undo);
        }) > 0;
    }

    @Override
    public boolean finishCancelled(UUID node, long id, int attempt) {
        return jdbc.count(cancelRunning, (params) -> leasedAttempt(params, node, id, attempt)) > 0;
    }

    @Override
    public Cancellation cancel(long[] ids) {
        return cancellation(cancel, (params) -> params.int8Array("ids", ids));
    }

    @Override
    public Cancellation cancelBatchMembers(long batchId) {
        List<Long> requested = jdbc.query(requestBatchCancel, (params) -> params.int8("batch_id", batchId),
                (row) -> row.getLong(1));
        Cancellation cancelled = cancellation(cancelBatchMembers, (params) -> params.int8("batch_id", batchId));
        return new Cancellation(cancelled.cancelled(), Set.copyOf(requested));
    }

    private Cancellation cancellation(Sql statement, Jdbc.Binder binder) {
        List<long[]> rows = jdbc.query(statement, binder,
                (row) -> new long[] { row.getLong("id"), row.getBoolean("finished") ? 1 : 0 });
        Set<Long> finished = new HashSet<>();
        Set<Long> requested = new HashSet<>();
        rows.forEach((row) -> ((row[1] == 1) ? finished : requested).add(row[0]));
        return new Cancellation(finished, requested);
    }

    @Override
    public List<Long> cancelRequested(UUID node, long[] ids) {
        return jdbc.query(cancelRequested, (params) -> params.int8Array("ids", ids).uuid("node", node),
                (row) -> row.getLong("id"));
    }

    @Override
    public void progress(UUID node, long[] ids, int[] attempts, short[] percents, @Nullable String[] messages) {
        if (ids.length == 0) {
            return;
        }
        Short[] boxed = new Short[percents.length];
        for (int i = 0; i < percents.length; i++) {
            boxed[i] = percents[i];
        }
        jdbc.update(progress, (params) -> params.int8Array("ids", ids)
            .int4Array("attempts", attempts)
            .array("percents", "int2", boxed)
            .array("messages", "text", messages)
            .uuid("node", node));
    }

    @Override
    public int expireDedupWindows(int limit) {
        return (int) jdbc.count(expireDedupWindows, (params) -> params.int4("limit", limit));
    }

    @Override
    public boolean refreshStatisticsIfGrown() {
        Boolean analyzed = transactions.execute((status) -> {
            List<Boolean> outgrown = jdbc.query(statisticsOutgrown, (params) -> params.int8("min_pages", STATISTICS_MIN_PAGES)
                .int8("growth", STATISTICS_GROWTH)
                .text("lock", "pgqueue.analyze." + schema.name())
                .text("table", schema.name() + ".job"), (row) -> row.getBoolean(1));
            if (outgrown.isEmpty() || !outgrown.get(0)) {
                return false;
            }
            jdbc.update(analyze, (params) -> {
            });
            return true;
        });
        return Boolean.TRUE.equals(analyzed);
    }

    @Override
    public int rescue(Duration nodeTimeout) {
        return (int) jdbc.countAll(rescue, (params) -> params.int8("node_timeout_ms", nodeTimeout.toMillis()));
    }

    @Override
    public boolean transactionAborted() {
        return jdbc.transactionAborted();
    }

    @Override
    public int release(UUID node, long[] ids) {
        if (ids.length == 0) {
            return 0;
        }
        return (int) jdbc.countAll(release, (params) -> params.int8Array("ids", ids).uuid("node", node));
    }

    @Override
    public boolean extendLease(UUID node, long id, int attempt, Duration lease) {
        return jdbc.update(extendLease, (params) -> leasedAttempt(params, node, id, attempt)
            .int8("lease_ms", lease.toMillis())) > 0;
    }

    /**
     * When a live job takes a dedup key concurrently, the jobs are retried one by one and the one that
     * collides stays dead.
     */
    @Override
    public int retryDead(String queue, long @Nullable [] ids) {
        try {
            return (int) jdbc.count(retryDead, (params) -> params.text("queue", queue).int8Array("ids", ids));
        }
        catch (DuplicateKeyException ex) {
            if (ids != null && ids.length == 1) {
                return 0;
            }
            List<Long> dead = (ids != null) ? Arrays.stream(ids).boxed().toList()
                    : jdbc.query(deadIds, (params) -> params.text("queue", queue), (row) -> row.getLong(1));
            int retried = 0;
            for (Long deadId : dead) {
                retried += retryDead(queue, new long[] { deadId });
            }
            return retried;
        }
    }

    @Override
    public List<String> readyQueues(String[] queues) {
        return jdbc.query(readyQueues, (params) -> params.array("queues", "text", queues), (row) -> row.getString(1));
    }

    @Override
    public int purgeDead(String queue, long @Nullable [] ids, int limit) {
        return (int) jdbc.count(purgeDead,
                (params) -> params.text("queue", queue).int8Array("ids", ids).int4("limit", limit));
    }

    @Override
    public int expireDead(Duration retention, int limit) {
        return (int) jdbc.count(expireDead,
                (params) -> params.int8("retention_ms", retention.toMillis()).int4("limit", limit));
    }

    // ---- reads ---------------------------------------------------------------------------------------

    @Override
    public @Nullable Long findLiveByDedupKey(String queue, String dedupKey) {
        List<Long> ids = jdbc.query(findLiveByDedupKey, (params) -> params.text("queue", queue).text("dedup_key", dedupKey),
                (row) -> row.getLong(1));
        return ids.isEmpty() ? null : ids.get(0);
    }

    @Override
    public @Nullable JobInfo job(long id) {
        JobInfo found = lookUp(id);
        ClaimedJob claimedHere = TransactionalClaims.claimedHere(jdbc.dataSource(), id);
        if (claimedHere == null || (found != null && !found.state().isFinished())) {
            // not claimed by this thread's transaction, or put back in it (its handler failed)
            return found;
        }
        // deleted (or archived as completed) by this thread's own claim while its handler runs: the row as it
        // was committed, which other transactions still see, as the claim took it
        JobInfo committed = besideTransaction.execute((status) -> lookUp(id));
        if (committed == null) {
            return found;
        }
        return new JobInfo(id, committed.queue(), JobState.RUNNING, committed.payload(), committed.payloadType(),
                committed.headers(), claimedHere.attempt(), claimedHere.maxAttempts(), committed.priority(),
                committed.runAt(), committed.enqueuedAt(), claimedHere.claimedAt(), null, committed.lastError(), null,
                null, false, committed.groupKey(), committed.dedupKey(), committed.timeoutMillis(), null, null,
                committed.workflowId(), committed.batchId(), committed.fairnessKey());
    }

    private @Nullable JobInfo lookUp(long id) {
        List<JobInfo> found = jdbc.query(lookups.byId(), (params) -> params.int8("id", id), JobLookups::read);
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public List<JobInfo> jobs(JobQuery query) {
        return jdbc.query(lookups.matching(query), (params) -> lookups.bind(params, query), JobLookups::read);
    }

    @Override
    public List<DeadJob> deadJobs(String queue, int offset, int limit, boolean content) {
        return jdbc.query(content ? deadJobs : deadJobSummaries, (params) -> params.text("queue", queue).int4("offset", offset).int4("limit", limit),
                (row) -> new DeadJob(row.getLong("id"), row.getString("queue"), row.getInt("attempts"),
                        row.getString("last_error"), row.getString("payload"), row.getString("payload_type"),
                        row.getTimestamp("created_at").toInstant()));
    }

    /** How the rows of one insert travel as parameters. */
    private enum RowShape {

        /** A single send: plain parameters, cheaper to bind than nine one-element arrays. */
        SINGLE("(VALUES (:payload::text, :payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, "
                + ":delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, "
                + ":dedup_for_ms::bigint%s))", ", :fairness_key::text", Counters.Rows.ONE),

        /**
         * A batch whose jobs differ only in payload (sendBatch with one SendOptions, the usual case): one array
         * of payloads, every other column a single parameter.
         */
        UNIFORM("(SELECT p.payload, o.* FROM unnest(:payload::text[]) AS p(payload) CROSS JOIN "
                + "(VALUES (:payload_type::text, :headers::text, :priority::smallint, :run_at_ms::bigint, "
                + ":delay_ms::bigint, :max_attempts::int, :dedup_key::text, :group_key::text, :timeout_ms::bigint, "
                + ":dedup_for_ms::bigint%s)) AS o)", ", :fairness_key::text",
                Counters.Rows.MANY),

        /** Any batch: one array per column, expanded by unnest. */
        MIXED("unnest(:payload::text[], :payload_type::text[], :headers::text[], :priority::smallint[], "
                + ":run_at_ms::bigint[], :delay_ms::bigint[], :max_attempts::int[], :dedup_key::text[], "
                + ":group_key::text[], :timeout_ms::bigint[], :dedup_for_ms::bigint[]%s)", ", :fairness_key::text[]",
                Counters.Rows.MANY);

        /** The rows, with a place ({@code %s}) for a further column. */
        private final String rows;

        /** The fairness key's column, in the place of a keyed insert's rows. */
        private final String keyColumn;

        private final Counters.Rows counted;

        RowShape(String rows, String keyColumn, Counters.Rows counted) {
            this.rows = rows;
            this.keyColumn = keyColumn;
            this.counted = counted;
        }

        /** The rows, with the fairness key as a further column when {@code keyed}. */
        String rows(boolean keyed) {
            return rows.formatted(keyed ? keyColumn : "");
        }

        static RowShape of(List<NewJob> jobs) {
            if (jobs.size() == 1) {
                return SINGLE;
            }
            NewJob first = jobs.get(0);
            return jobs.stream().allMatch(first::sameOptionsAs) ? UNIFORM : MIXED;
        }

        void bind(Params params, List<NewJob> jobs) throws SQLException {
            if (this == MIXED) {
                params.array("payload", "text", column(jobs, NewJob::payloadJson))
                    .array("payload_type", "text", column(jobs, NewJob::payloadType))
                    .array("headers", "text", column(jobs, NewJob::headersJson))
                    .array("priority", "int2", column(jobs, NewJob::priority))
                    .array("run_at_ms", "int8", column(jobs, NewJob::runAtMillis))
                    .array("delay_ms", "int8", column(jobs, NewJob::delayMillis))
                    .array("max_attempts", "int4", column(jobs, NewJob::maxAttempts))
                    .array("dedup_key", "text", column(jobs, NewJob::dedupKey))
                    .array("group_key", "text", column(jobs, NewJob::groupKey))
                    .array("timeout_ms", "int8", column(jobs, NewJob::timeoutMillis))
                    .array("dedup_for_ms", "int8", column(jobs, NewJob::dedupForMillis));
                if (params.expects("fairness_key")) {
                    params.array("fairness_key", "text", column(jobs, NewJob::fairnessKey));
                }
                return;
            }
            NewJob job = jobs.get(0);
            if (this == SINGLE) {
                params.text("payload", job.payloadJson());
            }
            else {
                params.array("payload", "text", column(jobs, NewJob::payloadJson));
            }
            params.text("payload_type", job.payloadType())
                .text("headers", job.headersJson())
                .int2("priority", job.priority())
                .int8("run_at_ms", job.runAtMillis())
                .int8("delay_ms", job.delayMillis())
                .int4("max_attempts", job.maxAttempts())
                .text("dedup_key", job.dedupKey())
                .text("group_key", job.groupKey())
                .int8("timeout_ms", job.timeoutMillis())
                .int8("dedup_for_ms", job.dedupForMillis());
            if (params.expects("fairness_key")) {
                params.text("fairness_key", job.fairnessKey());
            }
        }

        private static @Nullable Object[] column(List<NewJob> jobs, Function<NewJob, @Nullable Object> column) {
            return Params.column(jobs, column);
        }
    }
}
