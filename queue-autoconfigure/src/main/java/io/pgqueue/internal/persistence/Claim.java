package io.pgqueue.internal.persistence;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The result of a claim.
 *
 * @param jobs the jobs claimed
 * @param promoted how many due scheduled jobs of the queue became ready just before the claim
 * @param last the position of the last job claimed in claim order, or null when none was
 * @param emptiedKeys the fairness keys a fair claim found without ready jobs (their share of the claim went
 * unused: another claim right away fills it)
 * @param undo how a TRANSACTIONAL claim is taken back in its transaction ({@link ClaimUndo#NONE} for LEASE claims)
 */
public record Claim(List<ClaimedJob> jobs, long promoted, @Nullable ClaimCursor last, List<String> emptiedKeys,
        ClaimUndo undo) {

    public static final Claim NONE = new Claim(List.of(), 0, null);

    public Claim {
        jobs = List.copyOf(jobs);
        emptiedKeys = List.copyOf(emptiedKeys);
    }

    public Claim(List<ClaimedJob> jobs, long promoted, @Nullable ClaimCursor last, List<String> emptiedKeys) {
        this(jobs, promoted, last, emptiedKeys, ClaimUndo.NONE);
    }

    public Claim(List<ClaimedJob> jobs, long promoted, @Nullable ClaimCursor last) {
        this(jobs, promoted, last, List.of());
    }

    /** This claim, taken back as {@code undo} says. */
    Claim withUndo(ClaimUndo undo) {
        return new Claim(jobs, promoted, last, emptiedKeys, undo);
    }
}
