package io.pgqueue.internal.persistence;

import java.time.Duration;
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
 * @param throttle what the queue's cap or rate left of the claim ({@link Throttle#NONE} when neither cut it short)
 * @param keyAlone the jobs are those of a fairness key alone in its queue, claimed as a plain queue's: the key owes
 * nothing for them (a TRANSACTIONAL claim's transaction charges no key)
 */
public record Claim(List<ClaimedJob> jobs, long promoted, @Nullable ClaimCursor last, List<String> emptiedKeys,
        ClaimUndo undo, Throttle throttle, boolean keyAlone) {

    public static final Claim NONE = new Claim(List.of(), 0, null);

    public Claim {
        jobs = List.copyOf(jobs);
        emptiedKeys = List.copyOf(emptiedKeys);
    }

    public Claim(List<ClaimedJob> jobs, long promoted, @Nullable ClaimCursor last, List<String> emptiedKeys,
            ClaimUndo undo) {
        this(jobs, promoted, last, emptiedKeys, undo, Throttle.NONE, false);
    }

    public Claim(List<ClaimedJob> jobs, long promoted, @Nullable ClaimCursor last, List<String> emptiedKeys) {
        this(jobs, promoted, last, emptiedKeys, ClaimUndo.NONE);
    }

    /**
     * Whether, and until when, a throttled queue's cap or rate cut a claim short: the next claim is worth making
     * once a running job of the queue finished, or once the rate's window opened, not a poll interval later.
     *
     * @param capReached the claim took all the room the queue's {@code max-running} left (none, possibly)
     * @param windowOpensIn when the rate took the last permit of its window: how long until the next window opens
     */
    public record Throttle(boolean capReached, @Nullable Duration windowOpensIn) {

        public static final Throttle NONE = new Throttle(false, null);

        public boolean limited() {
            return capReached || windowOpensIn != null;
        }
    }

    /** This claim, with the keys it may report as found empty. */
    public Claim withEmptiedKeys(List<String> keys) {
        return new Claim(jobs, promoted, last, keys, undo, throttle, keyAlone);
    }

    /** This claim, marked with what throttled it. */
    Claim withThrottle(Throttle throttle) {
        return new Claim(jobs, promoted, last, emptiedKeys, undo, throttle, keyAlone);
    }

    public Claim(List<ClaimedJob> jobs, long promoted, @Nullable ClaimCursor last) {
        this(jobs, promoted, last, List.of());
    }

    /** This claim, of a key alone in its queue. */
    Claim ofKeyAlone() {
        return new Claim(jobs, promoted, null, emptiedKeys, undo, throttle, true);
    }

    /** This claim, taken back as {@code undo} says. */
    Claim withUndo(ClaimUndo undo) {
        return new Claim(jobs, promoted, last, emptiedKeys, undo, throttle, keyAlone);
    }
}
