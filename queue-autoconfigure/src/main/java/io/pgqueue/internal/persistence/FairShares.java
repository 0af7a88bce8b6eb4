package io.pgqueue.internal.persistence;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * How a fair queue shares its claims among its keys, as configured (a weight or cap set at run time, kept in
 * the database, takes precedence over the configured weight).
 *
 * @param weights configured weights by key
 * @param caps configured caps on running jobs by key
 * @param defaultWeight the weight of keys without one
 * @param defaultCap the cap of keys without their own, or null for none
 * @param keysPerClaim most keys one claim looks at
 * @param mostPerClaim most jobs one claim takes (the container's batch)
 */
public record FairShares(Map<String, Double> weights, Map<String, Integer> caps, double defaultWeight,
        @Nullable Integer defaultCap, int keysPerClaim, int mostPerClaim) {

    public FairShares {
        weights = Map.copyOf(weights);
        caps = Map.copyOf(caps);
    }

    /** Binds the settings' parameters of a fair statement. */
    void bind(Params params) throws java.sql.SQLException {
        TreeMap<String, Object[]> rows = new TreeMap<>();
        weights.forEach((key, weight) -> rows.computeIfAbsent(key, (k) -> new Object[2])[0] = weight);
        caps.forEach((key, cap) -> rows.computeIfAbsent(key, (k) -> new Object[2])[1] = cap);
        List<String> keys = List.copyOf(rows.keySet());
        params.array("fair_keys", "text", keys.toArray())
            .array("fair_weights", "float8", rows.values().stream().map((row) -> row[0]).toArray());
        if (params.expects("fair_caps")) {
            params.array("fair_caps", "int4", rows.values().stream().map((row) -> row[1]).toArray());
        }
        if (params.expects("fair_default_weight")) {
            // not in a key alone's claim, which weighs nothing
            params.float8("fair_default_weight", defaultWeight);
        }
        if (params.expects("fair_default_cap")) {
            params.int4("fair_default_cap", defaultCap);
        }
    }
}
