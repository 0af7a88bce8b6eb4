package io.pgqueue.model;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One page of jobs, newest first.
 *
 * @param jobs the jobs
 * @param nextCursor pass to {@link JobQuery#after(long)} for the next page; null on the last page
 */
public record JobPage(List<JobInfo> jobs, @Nullable Long nextCursor) {

    public JobPage {
        jobs = List.copyOf(jobs);
    }
}
