package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

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
 * The JDBC {@link JobRepository}: runs the job table's statements, one per transition, which
 * {@link InsertStatements}, {@link ClaimStatements} and {@link FinishStatements} compose once at startup for the
 * features switched on (counters, history). Rows are found by primary key ({@code id = ANY(ARRAY(...))}) so that
 * a busy or bloated table never turns a statement into a sequential scan.
 */
final class JdbcJobRepository implements JobRepository {

    /** Live jobs of one queue or all queues that a listener would pick up now (exact; for tests). */
    /** Below this many pages (1 MB) a sequential scan costs nothing worth an ANALYZE. */
    private static final long STATISTICS_MIN_PAGES = 128;

    /** How many times the recorded size the heap must reach before statistics are refreshed. */
    private static final long STATISTICS_GROWTH = 4;

    private final Jdbc jdbc;

    private final Schema schema;

    private final JdbcHistoryRepository history;

    private final TransactionTemplate transactions;

    /** A read beside the transaction on this thread (suspended meanwhile), on a connection of its own. */
    private final TransactionTemplate besideTransaction;

    private final InsertStatements inserts;

    private final ClaimStatements claims;

    private final FinishStatements finishes;

    private final JobLookups lookups;

    private final Sql expireDedupWindows;

    private final Sql statisticsOutgrown;

    private final Sql analyze;

    private final Sql findLiveByDedupKey;

    JdbcJobRepository(Jdbc jdbc, Schema schema, Counters counters, JdbcHistoryRepository history,
            boolean durableClaims) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.history = history;
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(jdbc.dataSource()));
        this.besideTransaction = new TransactionTemplate(transactions.getTransactionManager());
        besideTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        besideTransaction.setReadOnly(true);
        FairnessCascade fairness = new FairnessCascade();
        BatchCascade batches = new BatchCascade(counters);
        this.inserts = new InsertStatements(schema, counters, batches, fairness);
        this.finishes = new FinishStatements(schema, counters, history, new WorkflowCascade(counters, history), batches,
                fairness);
        this.claims = new ClaimStatements(schema, counters, history, fairness, durableClaims);
        this.lookups = new JobLookups(schema);
        // a prepared plan made while the table was a few pages long reads the primary key by a sequential scan,
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
        this.findLiveByDedupKey = schema.sql("enqueue.find-live-by-dedup-key", 
                "SELECT id FROM {schema}.job WHERE queue = :queue AND dedup_key = :dedup_key AND state <> 'dead'");
    }

    /** The insert statements, whose CTEs a recurring schedule's tick reuses. */
    InsertStatements inserts() {
        return inserts;
    }

    // ---- statements, each generated once --------------------------------------------------------------

    // ---- transitions ---------------------------------------------------------------------------------

    @Override
    public List<Long> enqueue(String queue, List<NewJob> jobs, boolean notify) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        InsertStatements.Variant variant = InsertStatements.Variant.of(jobs, notify, false);
        return jdbc.query(inserts.insert(variant), (params) -> {
            variant.shape().bind(params, jobs);
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
        InsertStatements.Variant variant = InsertStatements.Variant.of(jobs, notify, true);
        return jdbc.query(inserts.insert(variant), (params) -> {
            variant.shape().bind(params, jobs);
            params.text("queue", queue).int8("batch_id", batchId);
            if (notify) {
                params.text("channel", schema.notifyChannel());
            }
        }, (row) -> row.getLong(1));
    }

    @Override
    public DebouncedSend enqueueDebounced(String queue, NewJob job) {
        String key = Objects.requireNonNull(job.debounceKey(), "debounce key");
        List<DebouncedSend> sent = jdbc.query(inserts.debounced, (params) -> {
            InsertStatements.RowShape.SINGLE.bind(params, List.of(job));
            params.text("queue", queue).text("debounce_key", key).text("fairness_key", job.fairnessKey());
        }, (row) -> new DebouncedSend(row.getLong("id"), row.getBoolean("inserted")));
        return sent.get(0);
    }

    @Override
    public int promoteDue(int limit) {
        return (int) jdbc.count(claims.promoteDue, (params) -> params.int4("promote_limit", limit));
    }

    @Override
    public int promoteDue(String queue) {
        return (int) jdbc.count(claims.promoteDueOfQueue,
                (params) -> params.text("queue", queue));
    }

    @Override
    public Claim claimLeased(ClaimRequest request) {
        return promoteThenClaim(claims.leased(request), request, (params) -> bindClaim(params, request), JdbcJobRepository::claimed);
    }

    /** As {@link #claimLeased}, its limit a parameter: a throttled claim's room differs from claim to claim. */
    private Claim claimLeasedWithinRoom(ClaimRequest request) {
        return promoteThenClaim(claims.leasedWithinRoom(request), request,
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
            jdbc.count(claims.throttleLock,
                    (params) -> params.text("key", "pgqueue.throttle." + schema.name() + "." + request.queue()));
            int room = request.limit();
            if (maxRunning != null) {
                room = maxRunning - (int) jdbc.count(claims.countRunning, (params) -> params.text("queue", request.queue()));
            }
            int permits = request.limit();
            Duration windowOpensIn = null;
            if (rate != null) {
                RateWindow window = jdbc.query(claims.rateWindow,
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
                jdbc.update(claims.rateStarted, (params) -> params.int4("started", taken).text("queue", request.queue()));
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
        return leaseClaim(claims.fairLeased(size(request, shares)), request,
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
        return transactionalClaim(claims.fairAndDelete(size(request, shares)), (params) -> {
            bindFairClaim(params, request, shares);
            params.text("fair_lock", "pgqueue.fair." + schema.name() + "." + request.queue() + ".");
        }, (rows, promoted) -> ClaimedRows.fairlyClaimed(rows, promoted).withUndo(ClaimUndo.SAVEPOINT));
    }

    /** The statement size of a claim: up to the container's batch (a claim asks for at most that). */
    private static ClaimStatements.FairSize size(ClaimRequest request, FairShares shares) {
        return new ClaimStatements.FairSize(Math.max(request.limit(), shares.mostPerClaim()), shares.keysPerClaim());
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
        jdbc.update(claims.chargeFairness, (params) -> {
            params.text("queue", queue)
                .array("keys", "text", sorted.keySet().toArray())
                .array("counts", "int4", sorted.values().toArray())
                .array("emptied", "text", emptied.toArray());
            shares.bind(params);
        });
    }

    @Override
    public int promoteDueFair(String queue) {
        return (int) jdbc.count(claims.promoteDueOfFairQueue,
                (params) -> params.text("queue", queue));
    }

    @Override
    public int sweepFairness(String queue) {
        Integer swept = transactions.execute((status) -> {
            int marked = jdbc.update(claims.sweepLock, (params) -> params.text("queue", queue));
            return (marked == 0) ? 0 : jdbc.update(claims.sweepSettle, (params) -> params.text("queue", queue));
        });
        return (swept != null) ? swept : 0;
    }

    @Override
    public int activateReadyKeys(String queue, String keylessJobsKey) {
        // jobs sent without a key (pgqueue.send() without p_fairness_key, an application that does not know the
        // queue is fair) take the default key first, in a statement of their own: the activation then sees them
        jdbc.count(claims.adoptKeylessJobs,
                (params) -> params.text("queue", queue).text("key", keylessJobsKey));
        return (int) jdbc.count(claims.activateReadyKeys, (params) -> params.text("queue", queue));
    }

    @Override
    public Claim claimAndDelete(ClaimRequest request) {
        return transactionalClaim(claims.andDelete(request), (params) -> bindClaim(params, request), JdbcJobRepository::claimedWithRests);
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
    public int complete(UUID node, List<Completion> jobs) {
        Cascades cascades = Cascades.of(jobs, Completion::cascades);
        long[] ids = Completion.ids(jobs);
        int[] attempts = jobs.stream().mapToInt(Completion::attempt).toArray();
        Sql statement = finishes.complete(cascades);
        int completed = (int) jdbc.count(statement, (params) -> {
            params.int8Array("ids", ids).uuid("node", node).int4Array("attempts", attempts);
            // outputs are kept for workflow nodes, and in the history when it is on
            if (statement.parameterNames().contains("outputs")) {
                params.array("outputs", "text", Completion.outputs(jobs));
            }
        });
        if (!cascades.any() || completed == ids.length) {
            return completed;
        }
        // cancel-requested nodes and members finish as cancelled, with the whole cascade (rows rescued meanwhile
        // are not ours)
        return completed + (int) jdbc.count(finishes.cancelRunningNodes,
                (params) -> params.int8Array("ids", ids).uuid("node", node).int4Array("attempts", attempts));
    }

    @Override
    public void membersSucceeded(List<Completion> jobs, boolean releaseClaimSavepoint) {
        Cascades cascades = Cascades.of(jobs, Completion::cascades);
        if (!cascades.any()) {
            return;
        }
        Sql statement = finishes.succeeded(cascades, releaseClaimSavepoint);
        jdbc.countAll(statement, (params) -> {
            params.int8Array("ids", Completion.ids(jobs))
                .array("workflow_ids", "int8", jobs.stream().map(Completion::workflowId).toArray())
                .array("batch_ids", "int8", jobs.stream().map(Completion::batchId).toArray());
            if (statement.parameterNames().contains("outputs")) {
                params.array("outputs", "text", Completion.outputs(jobs));
            }
        });
    }

    @Override
    public boolean fail(UUID node, FailureUpdate failure) {
        return failed(finishes.fail.of(failure.cascades()), failure, (params) -> params.uuid("node", node));
    }

    @Override
    public boolean failAfterRollback(FailureUpdate failure, ClaimUndo undo) {
        Cascades cascades = failure.cascades();
        return failed(undoing(undo, finishes.restoreClaimThenFail.of(cascades), finishes.undoClaimThenFail.of(cascades),
                finishes.failAfterRollback.of(cascades)),
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
    public boolean snooze(UUID node, long id, int attempt, Duration delay, Cascades cascades) {
        return jdbc.countAll(finishes.snooze.of(cascades), (params) -> leasedAttempt(params, node, id, attempt).int8("delay_ms", delay.toMillis()))
                > 0;
    }

    /** Binds the (node, id, attempt) that a statement on one LEASE attempt checks ownership by. */
    private static Params leasedAttempt(Params params, UUID node, long id, int attempt) throws SQLException {
        return params.int8("id", id).int4("attempt", attempt).uuid("node", node);
    }

    @Override
    public boolean snoozeAfterRollback(long id, int attempt, Duration delay, ClaimUndo undo) {
        return jdbc.countAll(undoing(undo, finishes.restoreClaimThenSnooze, finishes.undoClaimThenSnooze,
                finishes.snoozeAfterRollback), (params) -> {
            params.int8("delay_ms", delay.toMillis()).int4("attempt", attempt).int8("id", id);
            bindRestore(params, undo);
        }) > 0;
    }

    @Override
    public boolean finishCancelled(UUID node, long id, int attempt) {
        return jdbc.count(finishes.cancelRunning, (params) -> leasedAttempt(params, node, id, attempt)) > 0;
    }

    @Override
    public Cancellation cancel(long[] ids) {
        return cancellation(finishes.cancel, (params) -> params.int8Array("ids", ids));
    }

    @Override
    public Cancellation cancelBatchMembers(long batchId) {
        List<Long> requested = jdbc.query(finishes.requestBatchCancel, (params) -> params.int8("batch_id", batchId),
                (row) -> row.getLong(1));
        Cancellation cancelled = cancellation(finishes.cancelBatchMembers, (params) -> params.int8("batch_id", batchId));
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
        return jdbc.query(finishes.cancelRequested, (params) -> params.int8Array("ids", ids).uuid("node", node),
                (row) -> row.getLong("id"));
    }

    @Override
    public void progress(UUID node, List<ProgressReport> reports) {
        if (reports.isEmpty()) {
            return;
        }
        jdbc.update(finishes.progress, (params) -> params
            .int8Array("ids", reports.stream().mapToLong(ProgressReport::jobId).toArray())
            .int4Array("attempts", reports.stream().mapToInt(ProgressReport::attempt).toArray())
            .array("percents", "int2", reports.stream().map(ProgressReport::percent).toArray())
            .array("messages", "text", reports.stream().map(ProgressReport::message).toArray())
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
        return (int) jdbc.countAll(finishes.rescue, (params) -> params.int8("node_timeout_ms", nodeTimeout.toMillis()));
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
        return (int) jdbc.countAll(finishes.release, (params) -> params.int8Array("ids", ids).uuid("node", node));
    }

    @Override
    public boolean extendLease(UUID node, long id, int attempt, Duration lease) {
        return jdbc.update(finishes.extendLease, (params) -> leasedAttempt(params, node, id, attempt)
            .int8("lease_ms", lease.toMillis())) > 0;
    }

    /**
     * When a live job takes a dedup key concurrently, the jobs are retried one by one and the one that
     * collides stays dead.
     */
    @Override
    public int retryDead(String queue, long @Nullable [] ids) {
        try {
            return (int) jdbc.count(finishes.retryDead, (params) -> params.text("queue", queue).int8Array("ids", ids));
        }
        catch (DuplicateKeyException ex) {
            if (ids != null && ids.length == 1) {
                return 0;
            }
            List<Long> dead = (ids != null) ? Arrays.stream(ids).boxed().toList()
                    : jdbc.query(lookups.deadIds(), (params) -> params.text("queue", queue), (row) -> row.getLong(1));
            int retried = 0;
            for (Long deadId : dead) {
                retried += retryDead(queue, new long[] { deadId });
            }
            return retried;
        }
    }

    @Override
    public List<String> readyQueues(String[] queues) {
        return jdbc.query(claims.readyQueues, (params) -> params.array("queues", "text", queues), (row) -> row.getString(1));
    }

    @Override
    public int purgeDead(String queue, long @Nullable [] ids, int limit) {
        return (int) jdbc.count(finishes.purgeDead,
                (params) -> params.text("queue", queue).int8Array("ids", ids).int4("limit", limit));
    }

    @Override
    public int expireDead(Duration retention, int limit) {
        return (int) jdbc.count(finishes.expireDead,
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
        return jdbc.query(lookups.deadJobs(content), (params) -> params.text("queue", queue).int4("offset", offset).int4("limit", limit),
                (row) -> new DeadJob(row.getLong("id"), row.getString("queue"), row.getInt("attempts"),
                        row.getString("last_error"), row.getString("payload"), row.getString("payload_type"),
                        row.getTimestamp("created_at").toInstant()));
    }
}
