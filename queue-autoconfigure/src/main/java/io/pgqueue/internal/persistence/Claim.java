package io.pgqueue.internal.persistence;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The result of a claim.
 *
 * @param jobs the jobs claimed
 * @param promoted how many due scheduled jobs of the queue became ready just before the claim
 * @param last the position of the last job claimed in claim order, or null when none was
 */
public record Claim(List<ClaimedJob> jobs, long promoted, @Nullable ClaimCursor last) {

    public static final Claim NONE = new Claim(List.of(), 0, null);

    public Claim {
        jobs = List.copyOf(jobs);
    }
}
