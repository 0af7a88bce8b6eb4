package io.pgqueue.internal.listener;

import java.util.List;

import io.pgqueue.internal.persistence.ClaimedJob;
import org.slf4j.MDC;

/**
 * The MDC keys a handler's log lines carry while it runs: {@value #QUEUE}, {@value #JOB_ID}, {@value #ATTEMPT}
 * and, for a workflow node, {@value #WORKFLOW_ID}, for a batch's member, {@value #BATCH_ID} (for a batch
 * listener, the first job's, with the batch size in {@value #BATCH_SIZE}).
 * They are removed when the handler returns, so a pooled worker thread never logs another job's keys.
 */
final class JobLogContext implements AutoCloseable {

    static final String QUEUE = "pgqueue.queue";

    static final String JOB_ID = "pgqueue.jobId";

    static final String ATTEMPT = "pgqueue.attempt";

    static final String BATCH_SIZE = "pgqueue.batchSize";

    static final String WORKFLOW_ID = "pgqueue.workflowId";

    static final String BATCH_ID = "pgqueue.batchId";

    private static final List<String> KEYS = List.of(QUEUE, JOB_ID, ATTEMPT, BATCH_SIZE, WORKFLOW_ID, BATCH_ID);

    private JobLogContext() {
    }

    static JobLogContext of(ClaimedJob job) {
        MDC.put(QUEUE, job.queue());
        MDC.put(JOB_ID, Long.toString(job.id()));
        MDC.put(ATTEMPT, Integer.toString(job.attempt()));
        Long workflowId = job.workflowId();
        if (workflowId != null) {
            MDC.put(WORKFLOW_ID, workflowId.toString());
        }
        Long batchId = job.batchId();
        if (batchId != null) {
            MDC.put(BATCH_ID, batchId.toString());
        }
        return new JobLogContext();
    }

    static JobLogContext ofBatch(List<ClaimedJob> jobs) {
        JobLogContext context = of(jobs.get(0));
        MDC.put(BATCH_SIZE, Integer.toString(jobs.size()));
        return context;
    }

    @Override
    public void close() {
        KEYS.forEach(MDC::remove);
    }
}
