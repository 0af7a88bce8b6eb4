package io.pgqueue.internal.persistence;

import java.util.List;

/**
 * The result of a claim.
 *
 * @param jobs the jobs claimed
 * @param promoted how many due scheduled jobs of the queue became ready just before the claim
 */
public record Claim(List<ClaimedJob> jobs, long promoted) {

    public static final Claim NONE = new Claim(List.of(), 0);

    public Claim {
        jobs = List.copyOf(jobs);
    }
}
