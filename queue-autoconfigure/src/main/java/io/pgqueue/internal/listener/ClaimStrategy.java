package io.pgqueue.internal.listener;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.pgqueue.SendOptions;
import io.pgqueue.internal.persistence.Claim;
import io.pgqueue.internal.persistence.ClaimRequest;
import io.pgqueue.internal.persistence.ClaimedJob;
import io.pgqueue.internal.persistence.FairShares;
import io.pgqueue.internal.persistence.JobEnginePort;
import io.pgqueue.listener.ContainerOptions;
import io.pgqueue.listener.Fairness;
import io.pgqueue.model.DeliveryMode;

/**
 * How a container claims, chosen once from its options: each strategy is a named statement variant of the
 * repository. Plain claims take the queue's ready jobs in priority and time order; throttled ones first count
 * what runs and started (queue cap, rate) under a cluster-wide lock; fair ones share each claim among the
 * jobs' fairness keys by weight, within each key's cap, and keep the keys' activity. Group FIFO is a condition
 * of every strategy's statement (a job runs when its group's turn has come).
 */
abstract class ClaimStrategy {

    /** How often a fair container re-activates keys whose ready jobs no statement activated, while it idles. */
    private static final long SAFETY_SWEEP_NANOS = 10_000_000_000L;

    /**
     * How often at most a fair container deactivates the keys its claims found empty: such a key is already at the
     * back of the line (its pass moved past the others'), so a sweep per claim would buy nothing but statements.
     */
    private static final long SWEEP_NANOS = 500_000_000L;

    protected final JobEnginePort jobs;

    protected final String queue;

    ClaimStrategy(JobEnginePort jobs, String queue) {
        this.jobs = jobs;
        this.queue = queue;
    }

    static ClaimStrategy of(ContainerOptions options, JobEnginePort jobs) {
        Fairness fairness = options.fairness();
        if (fairness != null) {
            FairShares shares = new FairShares(fairness.weights(), fairness.maxRunning(), fairness.defaultWeight(),
                    fairness.maxRunningPerKey(), fairness.keysPerClaim(), options.batchSize());
            return new Fair(jobs, options, shares);
        }
        if (options.mode() == DeliveryMode.TRANSACTIONAL) {
            return new Plain(jobs, options.queue()) {

                @Override
                Claim claim(ClaimRequest request) {
                    return jobs.claimAndDelete(request);
                }
            };
        }
        if (options.throttled()) {
            return new Plain(jobs, options.queue()) {

                @Override
                Claim claim(ClaimRequest request) {
                    return jobs.claimThrottled(request, options.maxRunning(), options.rate());
                }
            };
        }
        return new Plain(jobs, options.queue()) {

            @Override
            Claim claim(ClaimRequest request) {
                return jobs.claimLeased(request);
            }
        };
    }

    /** Claims (in the caller's transaction for TRANSACTIONAL delivery). */
    abstract Claim claim(ClaimRequest request);

    /** Promotes the queue's due jobs in a transaction of their own (before a TRANSACTIONAL claim). */
    abstract int promoteDue();

    /**
     * In a TRANSACTIONAL claim's transaction, after its handlers, just before it commits.
     *
     * @param jobsKept whether the claimed jobs stay taken: false when a failure or snooze rolled the transaction
     * back to the claim's savepoint and put every claimed job back
     */
    Claim beforeCommit(Claim claim, boolean jobsKept) {
        return claim;
    }

    /** After a claim committed (LEASE) or its transaction ended. */
    void afterClaim(Claim claim) {
    }

    /** When the container starts. */
    void started() {
    }

    /**
     * Whether more jobs are probably ready than the claim took: it came back full, or it found keys empty, whose
     * share another claim gives to the keys that have jobs (each such claim marks the keys it found empty, which
     * the next passes by: the keys with jobs come into its view, and the claims end when none is left to mark).
     */
    boolean moreReady(Claim claim, int requested) {
        return claim.jobs().size() >= requested || !claim.emptiedKeys().isEmpty();
    }

    private abstract static class Plain extends ClaimStrategy {

        Plain(JobEnginePort jobs, String queue) {
            super(jobs, queue);
        }

        @Override
        int promoteDue() {
            return jobs.promoteDue(queue);
        }
    }

    /** Shares each claim among the fairness keys; composes with a queue cap and a rate (LEASE). */
    private static final class Fair extends ClaimStrategy {

        private final ContainerOptions options;

        private final FairShares shares;

        private volatile long lastSafetySweep = System.nanoTime();

        private volatile long lastSweep = System.nanoTime() - SWEEP_NANOS;

        Fair(JobEnginePort jobs, ContainerOptions options, FairShares shares) {
            super(jobs, options.queue());
            this.options = options;
            this.shares = shares;
        }

        @Override
        Claim claim(ClaimRequest request) {
            if (options.mode() == DeliveryMode.TRANSACTIONAL) {
                return jobs.claimFairAndDelete(request, shares);
            }
            if (options.throttled()) {
                return jobs.claimThrottled(request, options.maxRunning(), options.rate(), shares);
            }
            return jobs.claimFairLeased(request, shares);
        }

        @Override
        int promoteDue() {
            return jobs.promoteDueFair(queue);
        }

        @Override
        Claim beforeCommit(Claim claim, boolean jobsKept) {
            if (claim.keyAlone()) {
                // a key alone owes nothing, and the claim found none empty
                return claim;
            }
            Map<String, Integer> taken = new TreeMap<>();
            // jobs a rollback put back were not taken: their keys are charged nothing for them
            for (ClaimedJob job : jobsKept ? claim.jobs() : List.<ClaimedJob>of()) {
                String key = job.fairnessKey();
                if (key != null) {
                    taken.merge(key, 1, Integer::sum);
                }
            }
            claim.emptiedKeys().forEach((key) -> taken.putIfAbsent(key, 0));
            return claim.withEmptiedKeys(jobs.chargeFairness(queue, shares, taken, claim.emptiedKeys()));
        }

        @Override
        void afterClaim(Claim claim) {
            long now = System.nanoTime();
            if ((!claim.emptiedKeys().isEmpty() || claim.jobs().isEmpty()) && now - lastSweep >= SWEEP_NANOS) {
                lastSweep = now;
                jobs.sweepFairness(queue);
            }
            if (claim.jobs().isEmpty() && System.nanoTime() - lastSafetySweep > SAFETY_SWEEP_NANOS) {
                safetySweep();
            }
        }

        @Override
        void started() {
            safetySweep();
        }

        private void safetySweep() {
            lastSafetySweep = System.nanoTime();
            jobs.activateReadyKeys(queue, SendOptions.DEFAULT_FAIRNESS_KEY);
            jobs.sweepFairness(queue);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + queue + "]";
    }
}
