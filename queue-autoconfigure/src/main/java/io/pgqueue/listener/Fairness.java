package io.pgqueue.listener;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * How a fair queue's listeners share their workers among the jobs' fairness keys: under contention each key
 * with ready jobs receives claims in proportion to its weight, a key alone receives every worker, and no worker
 * waits while any key has a ready job. Weights set at run time through {@code QueueAdmin} take precedence over
 * the weights given here. Immutable; build with {@link #builder()}.
 */
public final class Fairness {

    private final Map<String, Double> weights;

    private final double defaultWeight;

    private final @Nullable Integer maxRunningPerKey;

    private final Map<String, Integer> maxRunning;

    private final int keysPerClaim;

    private Fairness(Builder builder) {
        this.weights = Map.copyOf(builder.weights);
        this.defaultWeight = builder.defaultWeight;
        this.maxRunningPerKey = builder.maxRunningPerKey;
        this.maxRunning = Map.copyOf(builder.maxRunning);
        this.keysPerClaim = builder.keysPerClaim;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Weights by key, for the keys given one. */
    public Map<String, Double> weights() {
        return weights;
    }

    /** The weight of keys without one. */
    public double defaultWeight() {
        return defaultWeight;
    }

    /** Most running jobs of any one key across the cluster, or null for none. */
    public @Nullable Integer maxRunningPerKey() {
        return maxRunningPerKey;
    }

    /** Most running jobs by key, for the keys given their own cap. */
    public Map<String, Integer> maxRunning() {
        return maxRunning;
    }

    /** Most keys one claim looks at. */
    public int keysPerClaim() {
        return keysPerClaim;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Fairness fairness && weights.equals(fairness.weights)
                && defaultWeight == fairness.defaultWeight && Objects.equals(maxRunningPerKey, fairness.maxRunningPerKey)
                && maxRunning.equals(fairness.maxRunning) && keysPerClaim == fairness.keysPerClaim;
    }

    @Override
    public int hashCode() {
        return Objects.hash(weights, defaultWeight, maxRunningPerKey, maxRunning, keysPerClaim);
    }

    @Override
    public String toString() {
        return "Fairness[weights=" + weights + ", defaultWeight=" + defaultWeight + ", maxRunningPerKey="
                + maxRunningPerKey + ", maxRunning=" + maxRunning + ", keysPerClaim=" + keysPerClaim + "]";
    }

    public static final class Builder {

        private final Map<String, Double> weights = new LinkedHashMap<>();

        private double defaultWeight = 1.0;

        private @Nullable Integer maxRunningPerKey;

        private final Map<String, Integer> maxRunning = new LinkedHashMap<>();

        private int keysPerClaim = 16;

        private Builder() {
        }

        /** The key's weight: under contention it receives claims in proportion to it (default 1). */
        public Builder weight(String key, double weight) {
            this.weights.put(Objects.requireNonNull(key, "key"), positive(weight, "weight of '" + key + "'"));
            return this;
        }

        public Builder defaultWeight(double weight) {
            this.defaultWeight = positive(weight, "defaultWeight");
            return this;
        }

        /** Most running jobs of any one key across the cluster. */
        public Builder maxRunningPerKey(@Nullable Integer cap) {
            if (cap != null && cap < 1) {
                throw new IllegalArgumentException("maxRunningPerKey must be at least 1: " + cap);
            }
            this.maxRunningPerKey = cap;
            return this;
        }

        /** Most running jobs of one key across the cluster, instead of {@link #maxRunningPerKey}. */
        public Builder maxRunning(String key, int cap) {
            if (cap < 1) {
                throw new IllegalArgumentException("maxRunning of '" + key + "' must be at least 1: " + cap);
            }
            this.maxRunning.put(Objects.requireNonNull(key, "key"), cap);
            return this;
        }

        public Builder keysPerClaim(int keys) {
            if (keys < 1) {
                throw new IllegalArgumentException("keysPerClaim must be at least 1: " + keys);
            }
            this.keysPerClaim = keys;
            return this;
        }

        public Fairness build() {
            return new Fairness(this);
        }

        private static double positive(double weight, String what) {
            if (!(weight > 0) || Double.isInfinite(weight)) {
                throw new IllegalArgumentException(what + " must be a number above zero: " + weight);
            }
            return weight;
        }
    }
}
