package io.pgqueue.internal.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.pgqueue.listener.RateLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job table's {@link JobEnginePort}: claims, acknowledgements, failures, snoozes, cancellations of running jobs, leases, progress, release and rescue, with the statements {@link ClaimStatements} and {@link FinishStatements} composed.
 */
final class JdbcJobEngine implements JobEnginePort {

    /**
     * The fair queues whose last fair LEASE claim found one key to look at: their next claim first tries the plain
     * claim of a key alone (one round trip with the promotion, no key row), which takes nothing once another key
     * is active. A hint, never a decision: the lone key's statement checks that the key is still alone.
     */
    private final Set<String> loneKeyQueues = ConcurrentHashMap.newKeySet();

    private final Jdbc jdbc;

    private final Schema schema;

    private final JdbcHistoryRepository history;

    private final TransactionTemplate transactions;

    private final ClaimStatements claims;

    private final FinishStatements finishes;

    JdbcJobEngine(Jdbc jdbc, Schema schema, JdbcHistoryRepository history, TransactionTemplate transactions, ClaimStatements claims, FinishStatements finishes) {
        this.jdbc = jdbc;
        this.schema = schema;
        this.history = history;
        this.transactions = transactions;
        this.claims = claims;
        this.finishes = finishes;
    }

    @Override
    public int promoteDue(String queue) {
        return (int) jdbc.count(claims.promoteDueOfQueue,
                (params) -> params.text("queue", queue));
    }

    @Override
    public Claim claimLeased(ClaimRequest request) {
        return promoteThenClaim(claims.leased(request), request, (params) -> bindClaim(params, request), JdbcJobEngine::claimed);
    }

    /** As {@link #claimLeased}, its limit a parameter: a throttled claim's room differs from claim to claim. */
    private Claim claimLeasedWithinRoom(ClaimRequest request) {
        return promoteThenClaim(claims.leasedWithinRoom(request), request,
                (params) -> bindClaim(params, request), JdbcJobEngine::claimed);
    }

    /**
     * Runs a LEASE claim's two statements in one round trip and reads their two results: how many jobs the first
     * promoted, then the claimed rows.
     */
    private Claim promoteThenClaim(Sql sql, ClaimRequest request, Jdbc.Binder binder, ClaimReader<Claim> reader) {
        return leaseClaim(sql, request, binder, (statement) -> {
            statement.execute();
            long promoted = firstCount(nextResult(statement, false));
            try (ResultSet rows = nextRows(statement)) {
                return reader.read(rows, promoted);
            }
        });
    }

    /** Runs a LEASE claim's round trip on a connection, bound with the node and its lease. */
    private <T> T leaseClaim(Sql sql, ClaimRequest request, Jdbc.Binder binder, Jdbc.StatementWork<T> work) {
        UUID node = Objects.requireNonNull(request.node(), "A LEASE claim needs a node");
        return jdbc.execute((Connection connection) -> jdbc.run(connection, sql, (params) -> {
            binder.bind(params);
            params.uuid("node", node).int8("lease_ms", request.leaseMillis());
        }, work));
    }

    /** Reads a claim's rows. */
    @FunctionalInterface
    private interface ClaimReader<T> {

        T read(ResultSet rows, long promoted) throws SQLException;
    }

    /** The name of a queue's throttle lock (an advisory lock of this schema's queue). */
    private String throttleKey(String queue) {
        return "pgqueue.throttle." + schema.name() + "." + queue;
    }

    /** A rate's current window: the jobs started in it, and how long until the next one opens. */
    private record RateWindow(long started, Duration opensIn) {
    }

    @Override
    public Claim claimThrottled(ClaimRequest request, @Nullable Integer maxRunning, @Nullable RateLimit rate,
            @Nullable FairShares shares) {
        if (maxRunning != null && rate == null && shares == null) {
            return claimCapped(request, maxRunning);
        }
        Claim claim = transactions.execute((status) -> {
            jdbc.count(claims.throttleLock, (params) -> params.text("key", throttleKey(request.queue())));
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
     * A claim of a queue capped by {@code max-running} alone, in one round trip (a slot freed is refilled after an
     * acknowledgement and this, not after four round trips of a transaction): the throttle's lock, the count of
     * running jobs (the room, which says whether the cap cut the claim short), the promotion and the claim within
     * the room. A rate or fairness keys need their figures between statements: {@link #claimThrottled} runs those
     * in a transaction of several round trips.
     */
    private Claim claimCapped(ClaimRequest request, int maxRunning) {
        return claimCapped(claims.leasedCapped(request), request, maxRunning, Jdbc.Binder.NONE, false);
    }

    @Override
    public Claim completeThenClaimCapped(UUID node, Completion done, ClaimRequest request, int maxRunning) {
        if (done.cascades().any()) {
            throw new IllegalArgumentException("Only a plain job's completion is sent before a claim");
        }
        Sql sql = claims.completeThenLeaseCapped(finishes.completeOneText);
        return claimCapped(sql, request.withLimit(1), maxRunning, (params) -> {
            params.int8Array("ids", new long[] { done.id() }).int4Array("attempts", new int[] { done.attempt() })
                .int8("id", done.id());
            // outputs are kept in the history when it is on
            if (sql.parameterNames().contains("outputs")) {
                params.array("outputs", "text", new String[] { done.outputJson() });
            }
        }, true);
    }

    /**
     * Runs a capped claim's round trip ({@link ClaimStatements#leasedCapped}), after an acknowledgement when
     * {@code completesFirst}, and reads its results: the room counted, the jobs promoted, the jobs claimed.
     */
    private Claim claimCapped(Sql sql, ClaimRequest request, int maxRunning, Jdbc.Binder more, boolean completesFirst) {
        return leaseClaim(sql, request, (params) -> {
            bindClaim(params, request);
            params.text("key", throttleKey(request.queue())).int4("max_running", maxRunning);
            more.bind(params);
        }, (statement) -> {
            statement.execute();
            if (completesFirst) {
                nextResult(statement, false);
            }
            nextResult(statement, completesFirst);
            long room = maxRunning - firstCount(nextResult(statement, true));
            long promoted = firstCount(nextResult(statement, true));
            Claim claimed;
            try (ResultSet rows = nextResult(statement, true)) {
                claimed = claimed(rows, promoted);
            }
            // cut short by the cap: it took all the room there was (none, possibly)
            return claimed.withThrottle(new Claim.Throttle(
                    claimed.jobs().size() >= Math.max(room, 0) && room < request.limit(), null));
        });
    }

    /** The result of a round trip's next statement ({@code advance}: past the current one), which must have one. */
    private static ResultSet nextResult(Statement statement, boolean advance) throws SQLException {
        if (advance && !statement.getMoreResults()) {
            throw new IllegalStateException("A round trip returned fewer results than it has statements");
        }
        return statement.getResultSet();
    }

    /**
     * Runs a round trip and returns the first result with rows, past the statements before it that return none (a
     * savepoint, a setting: {@link GenericPlan}).
     */
    private static ResultSet firstRows(PreparedStatement statement) throws SQLException {
        return statement.execute() ? statement.getResultSet() : nextRows(statement);
    }

    /** The round trip's next result with rows, past the statements that return none. */
    private static ResultSet nextRows(Statement statement) throws SQLException {
        while (!statement.getMoreResults()) {
            if (statement.getUpdateCount() == -1) {
                throw new IllegalStateException("A claim's round trip returned no claimed rows");
            }
        }
        return statement.getResultSet();
    }

    /** The count a statement's one row holds. */
    private static long firstCount(ResultSet rows) throws SQLException {
        try (rows) {
            return rows.next() ? rows.getLong(1) : 0;
        }
    }

    /**
     * Promotes the queue's due jobs, then claims. Unlike a plain claim's, the promotion is a transaction of its
     * own, committed before the claim: a promotion that makes a drained key ready again locks that key's row, and
     * held through the claim (which locks the keys it charges in key order) it would be a second pass in another
     * order, in which two claimers can deadlock. Committed first, the claim holds no key row before its ordered
     * pass (but its capped keys, which no other claim waits for: a claim that cannot lock one skips it). Inside a
     * throttled claim's transaction both run in it: those claims take turns. A key alone, which the claim locks
     * no row of, is claimed with the promotion in one round trip ({@link ClaimStatements#fairLeasedAlone}).
     */
    @Override
    public Claim claimFairLeased(ClaimRequest request, FairShares shares) {
        long promotedAlone = 0;
        if (loneKeyQueues.contains(request.queue())) {
            Claim lone = promoteThenClaim(claims.fairLeasedAlone(request.limit()), request,
                    bindLoneKeyClaim(request, shares),
                    (rows, promoted) -> ClaimedRows.claimed(rows, promoted, null).ofKeyAlone());
            if (!lone.jobs().isEmpty()) {
                return lone;
            }
            promotedAlone = lone.promoted();
            // another key is active, or the key has no ready job left (the fair claim marks it drained)
        }
        long promoted = promotedAlone + promoteDueFair(request.queue());
        ClaimedRows.FairRows fair = leaseClaim(claims.fairLeased(size(request, shares)), request,
                (params) -> bindFairClaim(params, request, shares), (statement) -> {
                    try (ResultSet rows = firstRows(statement)) {
                        return ClaimedRows.fairRows(rows, promoted);
                    }
                });
        rememberLoneKey(request.queue(), fair);
        Claim claim = fair.claim();
        if (!claim.emptiedKeys().isEmpty()) {
            // a job sent to a key the claim marked drained may have committed after the claim's snapshot was taken
            jdbc.update(claims.recheckDrained, (params) -> params.text("queue", request.queue())
                .array("keys", "text", claim.emptiedKeys().toArray()));
        }
        return claim;
    }

    @Override
    public Claim claimFairAndDelete(ClaimRequest request, FairShares shares) {
        if (loneKeyQueues.contains(request.queue())) {
            // claimed at the transaction's top level as a plain claim: when it claims nothing, the fair claim's
            // savepoint follows its savepoint of the same name, and rolling back to the newest takes back that claim
            Claim lone = transactionalClaim(claims.fairAndDeleteAlone(request.limit()), bindLoneKeyClaim(request, shares),
                    (rows, promoted) -> claimedWithRests(rows, promoted).ofKeyAlone());
            if (!lone.jobs().isEmpty()) {
                return lone;
            }
        }
        // the capped keys' advisory slots are taken in the claim's statement: the savepoint comes first, so that
        // rolling back to it gives them back with the jobs (the passes move at the commit, by the jobs kept)
        ClaimedRows.FairRows fair = transactionalClaim(claims.fairAndDelete(size(request, shares)), (params) -> {
            bindFairClaim(params, request, shares);
            params.text("fair_lock", "pgqueue.fair." + schema.name() + "." + request.queue() + ".");
        }, ClaimedRows::fairRows, ClaimedRows.FairRows::claim);
        rememberLoneKey(request.queue(), fair);
        return fair.claim().withUndo(ClaimUndo.SAVEPOINT);
    }

    /** Notes whether a fair claim found its queue's one uncapped key alone: the next claim tries the plain one. */
    private void rememberLoneKey(String queue, ClaimedRows.FairRows fair) {
        if (fair.keyAlone()) {
            loneKeyQueues.add(queue);
        }
        else {
            loneKeyQueues.remove(queue);
        }
    }

    /** Binds a lone key's claim: a plain claim's parameters and the keys' settings (its caps). */
    private static Jdbc.Binder bindLoneKeyClaim(ClaimRequest request, FairShares shares) {
        return (params) -> {
            bindClaim(params, request);
            shares.bind(params);
        };
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
    public List<String> chargeFairness(String queue, FairShares shares, Map<String, Integer> taken, List<String> emptied) {
        if (taken.isEmpty()) {
            return emptied;
        }
        java.util.TreeMap<String, Integer> sorted = new java.util.TreeMap<>(taken);
        Object[] keys = sorted.keySet().toArray();
        // the keys it may mark are locked in a statement of their own: the charge's snapshot then sees every job
        // made ready for them before
        List<String> drainable = emptied.isEmpty() ? List.of()
                : jdbc.query(claims.chargeLockFairness, (params) -> params.text("queue", queue)
                    .array("keys", "text", keys).array("emptied", "text", emptied.toArray()), (row) -> row.getString(1));
        jdbc.update(claims.chargeFairness, (params) -> {
            params.text("queue", queue)
                .array("keys", "text", keys)
                .array("counts", "int4", sorted.values().toArray())
                .array("emptied", "text", drainable.toArray());
            shares.bind(params);
        });
        return drainable;
    }

    @Override
    public int promoteDueFair(String queue) {
        return (int) jdbc.count(claims.promoteDueOfFairQueue,
                (params) -> params.text("queue", queue));
    }

    @Override
    public int sweepFairness(String queue) {
        Integer swept = transactions.execute((status) -> {
            jdbc.update(claims.foldCharges, (params) -> params.text("queue", queue));
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
        return transactionalClaim(claims.andDelete(request), (params) -> bindClaim(params, request), JdbcJobEngine::claimedWithRests);
    }

    /** Runs a TRANSACTIONAL claim with its savepoint (before or after it), and reads the claimed rows. */
    private Claim transactionalClaim(Sql sql, Jdbc.Binder binder, ClaimReader<Claim> reader) {
        return transactionalClaim(sql, binder, reader, (claim) -> claim);
    }

    /** As {@link #transactionalClaim(Sql, Jdbc.Binder, ClaimReader)}, the rows read as {@code T}, which holds the claim. */
    private <T> T transactionalClaim(Sql sql, Jdbc.Binder binder, ClaimReader<T> reader,
            Function<T, Claim> claimOf) {
        T read = jdbc.execute((Connection connection) -> jdbc.run(connection, sql, binder, (statement) -> {
            try (ResultSet rows = firstRows(statement)) {
                return reader.read(rows, 0);
            }
        }));
        TransactionalClaims.claimed(jdbc.dataSource(), claimOf.apply(read).jobs());
        return read;
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
        Sql statement = (ids.length == 1 && !cascades.any()) ? finishes.completeOne : finishes.complete(cascades);
        int completed = (int) jdbc.count(statement, (params) -> {
            params.int8Array("ids", ids).uuid("node", node).int4Array("attempts", attempts);
            if (statement == finishes.completeOne) {
                params.int8("id", ids[0]);
            }
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

    @Override
    public List<String> readyQueues(String[] queues) {
        return jdbc.query(claims.readyQueues, (params) -> params.array("queues", "text", queues), (row) -> row.getString(1));
    }
}
