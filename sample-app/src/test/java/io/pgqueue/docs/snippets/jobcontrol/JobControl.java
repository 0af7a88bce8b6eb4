package io.pgqueue.docs.snippets.jobcontrol;

import java.time.Instant;

import io.pgqueue.admin.JobsAdmin;
import io.pgqueue.admin.QueueAdmin;
import io.pgqueue.admin.QueuesAdmin;
import io.pgqueue.model.JobInfo;
import io.pgqueue.model.JobPage;
import io.pgqueue.model.JobQuery;
import io.pgqueue.model.JobState;

class JobControl {

    void lookup(QueueAdmin queueAdmin, long id) {
        // tag::lookup[]
        JobInfo job = queueAdmin.job(id); // state, payload, headers, attempts, run-at, last error, progress, output
        JobQuery query = JobQuery.queue("bills")
            .states(JobState.READY, JobState.DEAD)
            .groupKey("account-42")
            .header("tenant", "acme")
            .enqueuedAfter(Instant.parse("2026-11-01T00:00:00Z"))
            .limit(100)
            .build();
        JobPage page = queueAdmin.jobs(query);
        if (page.nextCursor() != null) { // null on the last page
            JobPage next = queueAdmin.jobs(query.after(page.nextCursor()));
        }
        // end::lookup[]
    }

    void cancel(QueueAdmin queueAdmin, long id) {
        // tag::cancel[]
        queueAdmin.cancel(id); // CANCELLED, or CANCEL_REQUESTED for a running LEASE job
        queueAdmin.cancel(JobQuery.queue("imports").header("tenant", "acme").build()); // every matching job
        // end::cancel[]
    }

    // tag::roles[]
    // a class that only pauses queues and retries dead jobs asks for those two roles of the one QueueAdmin bean
    class NightlyRepair {

        private final QueuesAdmin queues;

        private final JobsAdmin jobs;

        NightlyRepair(QueuesAdmin queues, JobsAdmin jobs) {
            this.queues = queues;
            this.jobs = jobs;
        }

        void run() {
            queues.pause("bills");
            jobs.retryAllDead("bills");
            queues.resume("bills");
        }
    }
    // end::roles[]
}
