package io.pgqueue.internal.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgqueue.internal.persistence.ClaimedJob;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The MDC keys a handler's log lines carry while it runs: {@value #QUEUE}, {@value #JOB_ID}, {@value #ATTEMPT}
 * and, for a workflow node, {@value #WORKFLOW_ID}, for a batch's member, {@value #BATCH_ID} (for a batch
 * listener, the first job's, with the batch size in {@value #BATCH_SIZE}).
 * They are removed when the handler returns, so a pooled worker thread never logs another job's keys; on a thread
 * whose context was empty before (pgqueue's own workers), so is every key the handler left there (a tenant it put
 * and did not remove would otherwise be logged with the next job's lines).
 */
final class JobLogContext implements AutoCloseable {

    static final String QUEUE = "pgqueue.queue";

    static final String JOB_ID = "pgqueue.jobId";

    static final String ATTEMPT = "pgqueue.attempt";

    static final String BATCH_SIZE = "pgqueue.batchSize";

    static final String WORKFLOW_ID = "pgqueue.workflowId";

    static final String BATCH_ID = "pgqueue.batchId";

    /**
     * The keys this context put, removed when it closes (a key not put is not removed: each removal costs); null
     * when the thread's context was empty before, which closing clears.
     */
    private final @Nullable List<String> keys;

    private JobLogContext(@Nullable List<String> keys) {
        this.keys = keys;
    }

    static JobLogContext of(ClaimedJob job) {
        return of(job, null);
    }

    static JobLogContext ofBatch(List<ClaimedJob> jobs) {
        return of(jobs.get(0), jobs.size());
    }

    private static JobLogContext of(ClaimedJob job, @Nullable Integer batchSize) {
        // a pooled worker's context is empty between jobs: cleared after this one, with whatever its handler put
        // there and left; a thread with keys of its own (a caller's) keeps them, and only ours are removed
        Map<String, String> before = MDC.getCopyOfContextMap();
        List<String> keys = (before == null || before.isEmpty()) ? null : new ArrayList<>(6);
        put(keys, QUEUE, job.queue());
        put(keys, JOB_ID, Long.toString(job.id()));
        put(keys, ATTEMPT, Integer.toString(job.attempt()));
        Long workflowId = job.workflowId();
        if (workflowId != null) {
            put(keys, WORKFLOW_ID, workflowId.toString());
        }
        Long batchId = job.batchId();
        if (batchId != null) {
            put(keys, BATCH_ID, batchId.toString());
        }
        if (batchSize != null) {
            put(keys, BATCH_SIZE, batchSize.toString());
        }
        return new JobLogContext(keys);
    }

    private static void put(@Nullable List<String> keys, String key, String value) {
        MDC.put(key, value);
        if (keys != null) {
            keys.add(key);
        }
    }

    @Override
    public void close() {
        if (keys == null) {
            MDC.clear();
        }
        else {
            keys.forEach(MDC::remove);
        }
    }
}
