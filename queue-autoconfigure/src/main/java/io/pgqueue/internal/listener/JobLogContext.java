package io.pgqueue.internal.listener;

import java.util.HashMap;
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
     * when the thread's context was empty and this one set it whole, which closing clears.
     */
    private final String @Nullable [] keys;

    private JobLogContext(String @Nullable [] keys) {
        this.keys = keys;
    }

    static JobLogContext of(ClaimedJob job) {
        return of(job, null);
    }

    static JobLogContext ofBatch(List<ClaimedJob> jobs) {
        return of(jobs.get(0), jobs.size());
    }

    private static JobLogContext of(ClaimedJob job, @Nullable Integer batchSize) {
        Map<String, String> values = new HashMap<>(8);
        values.put(QUEUE, job.queue());
        values.put(JOB_ID, Long.toString(job.id()));
        values.put(ATTEMPT, Integer.toString(job.attempt()));
        Long workflowId = job.workflowId();
        if (workflowId != null) {
            values.put(WORKFLOW_ID, workflowId.toString());
        }
        Long batchId = job.batchId();
        if (batchId != null) {
            values.put(BATCH_ID, batchId.toString());
        }
        if (batchSize != null) {
            values.put(BATCH_SIZE, batchSize.toString());
        }
        Map<String, String> before = MDC.getCopyOfContextMap();
        if (before == null || before.isEmpty()) {
            // a pooled worker's context is empty between jobs: set whole, then cleared with whatever the handler
            // added (two thread-local writes each in Logback, not one per key put and one per key removed)
            MDC.setContextMap(values);
            return new JobLogContext(null);
        }
        // a thread with keys of its own (a caller's, or a handler's that stayed): they stay, ours come and go
        values.forEach(MDC::put);
        return new JobLogContext(values.keySet().toArray(String[]::new));
    }

    @Override
    public void close() {
        String[] put = keys;
        if (put == null) {
            MDC.clear();
            return;
        }
        for (String key : put) {
            MDC.remove(key);
        }
    }
}
