package io.pgqueue.internal.persistence;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Reads the rows a claim returns into claimed jobs. A claim's columns are found by name once, not in every row,
 * and its time once: {@code claimed_at} is {@code now()}, the same in every row of the claim's transaction.
 * Looked up in every row, the fifteen names and four timestamps of a claimed job took a third of a
 * TRANSACTIONAL worker thread's CPU samples (no-op handlers, batches of 50, profiled).
 */
final class ClaimedRows {

    private final ResultSet rows;

    private final int id;

    private final int queue;

    private final int payload;

    private final int payloadType;

    private final int headers;

    private final int attempts;

    private final int maxAttempts;

    private final TimestampColumn createdAt;

    private final TimestampColumn runAt;

    private final TimestampColumn claimedAt;

    private final int timeoutMs;

    private final int priority;

    private final int workflowId;

    private final int batchId;

    private final int fairnessKey;

    private @Nullable Instant claimTime;

    /** The queue of the rows read so far (a claim's rows are of one queue): one string for all of them. */
    private @Nullable String lastQueue;

    private ClaimedRows(ResultSet rows) throws SQLException {
        this.rows = rows;
        this.id = rows.findColumn("id");
        this.queue = rows.findColumn("queue");
        this.payload = rows.findColumn("payload");
        this.payloadType = rows.findColumn("payload_type");
        this.headers = rows.findColumn("headers");
        this.attempts = rows.findColumn("attempts");
        this.maxAttempts = rows.findColumn("max_attempts");
        this.createdAt = TimestampColumn.of(rows, "created_at");
        this.runAt = TimestampColumn.of(rows, "run_at");
        this.claimedAt = TimestampColumn.of(rows, "claimed_at");
        this.timeoutMs = rows.findColumn("timeout_ms");
        this.priority = rows.findColumn("priority");
        this.workflowId = rows.findColumn("workflow_id");
        this.batchId = rows.findColumn("batch_id");
        this.fairnessKey = rows.findColumn("fairness_key");
    }

    /**
     * The claimed rows, and the last of them in claim order; with {@code rests}, each row's {@code rest} column
     * (what restores it) is added there.
     */
    static Claim claimed(ResultSet rows, long promoted, @Nullable List<String> rests) throws SQLException {
        ClaimedRows claimed = new ClaimedRows(rows);
        int rest = (rests != null) ? rows.findColumn("rest") : 0;
        List<ClaimedJob> jobs = new ArrayList<>();
        ClaimCursor last = null;
        while (rows.next()) {
            if (rests != null) {
                rests.add(rows.getString(rest));
            }
            Instant runAt = claimed.runAt.read(rows);
            ClaimCursor position = new ClaimCursor(rows.getInt(claimed.priority), runAt, rows.getLong(claimed.id));
            last = (last == null) ? position : ClaimCursor.later(last, position);
            jobs.add(claimed.job(runAt));
        }
        return new Claim(jobs, promoted, last);
    }

    /** The rows of a fair claim: the claimed jobs (none when its one row is empty) and the keys found empty. */
    static Claim fairlyClaimed(ResultSet rows, long promoted) throws SQLException {
        return fairRows(rows, promoted).claim();
    }

    /**
     * The rows of a fair claim, and whether it found one key to look at in its queue (a key alone, whose next
     * claim may be a plain one: {@link FairnessCascade#leasedAlone}).
     */
    static FairRows fairRows(ResultSet rows, long promoted) throws SQLException {
        ClaimedRows claimed = new ClaimedRows(rows);
        int emptiedKeys = rows.findColumn("emptied");
        int alone = rows.findColumn("alone");
        List<ClaimedJob> jobs = new ArrayList<>();
        List<String> emptied = List.of();
        boolean keyAlone = false;
        while (rows.next()) {
            java.sql.Array keys = rows.getArray(emptiedKeys);
            if (keys != null && emptied.isEmpty()) {
                emptied = List.of((String[]) keys.getArray());
            }
            keyAlone = rows.getBoolean(alone);
            if (rows.getObject(claimed.id) != null) {
                jobs.add(claimed.job(claimed.runAt.read(rows)));
            }
        }
        return new FairRows(new Claim(jobs, promoted, null, emptied), keyAlone);
    }

    /** A fair claim, and whether its queue had one key to look at. */
    record FairRows(Claim claim, boolean keyAlone) {
    }

    /**
     * The queue's name as the first row had it: the same string for every job of the claim, whose hash is then
     * computed once for the maps that every job's metrics and bookkeeping look the queue up in.
     */
    private String sameQueue(String read) {
        String last = lastQueue;
        if (read.equals(last)) {
            return last;
        }
        lastQueue = read;
        return read;
    }

    /** The job of the current row, whose run-at was read already. */
    private ClaimedJob job(Instant runAt) throws SQLException {
        if (claimTime == null) {
            claimTime = claimedAt.read(rows);
        }
        Long workflow = rows.getObject(workflowId, Long.class);
        Long batch = rows.getObject(batchId, Long.class);
        return new ClaimedJob(rows.getLong(id), sameQueue(rows.getString(queue)), rows.getString(payload),
                rows.getString(payloadType), rows.getString(headers), rows.getInt(attempts), rows.getInt(maxAttempts),
                createdAt.read(rows), runAt, claimTime, rows.getObject(timeoutMs, Long.class), workflow, batch,
                rows.getString(fairnessKey), Cascades.of(workflow, batch));
    }
}
