package io.pgqueue.internal.persistence;

import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A job row to insert, with its payload already serialised.
 *
 * @param payloadJson payload as JSON text
 * @param payloadType Java type the payload was written from
 * @param headersJson headers as a JSON object, or null
 * @param priority higher runs first
 * @param runAt absolute due time, or null to use {@code delayMillis} from the database clock
 * @param delayMillis delay from the database's {@code now()} when {@code runAt} is null
 * @param maxAttempts attempts before the job goes dead, or null for the listener's setting
 * @param dedupKey at most one live job per queue and key, or null
 * @param groupKey jobs with the same key run one at a time, in order, or null
 * @param timeoutMillis the most a handler may run on the job, or null for the listener's setting
 * @param dedupForMillis how long the dedup key stays taken after this send, finished or not, or null
 * @param debounceKey sends with this key collapse into the one job waiting for its quiet window, or null
 * @param fairnessKey the key a fair queue charges the job to, or null
 */
public record NewJob(String payloadJson, @Nullable String payloadType, @Nullable String headersJson, short priority,
        @Nullable Instant runAt, long delayMillis, @Nullable Integer maxAttempts, @Nullable String dedupKey,
        @Nullable String groupKey, @Nullable Long timeoutMillis, @Nullable Long dedupForMillis,
        @Nullable String debounceKey, @Nullable String fairnessKey) {

    @Nullable Long runAtMillis() {
        return (runAt != null) ? runAt.toEpochMilli() : null;
    }

    /** Whether the two rows differ in payload at most (then a batch binds its options once). */
    boolean sameOptionsAs(NewJob other) {
        return Objects.equals(payloadType, other.payloadType) && Objects.equals(headersJson, other.headersJson)
                && priority == other.priority && Objects.equals(runAt, other.runAt) && delayMillis == other.delayMillis
                && Objects.equals(maxAttempts, other.maxAttempts) && Objects.equals(dedupKey, other.dedupKey)
                && Objects.equals(groupKey, other.groupKey) && Objects.equals(timeoutMillis, other.timeoutMillis)
                && Objects.equals(dedupForMillis, other.dedupForMillis) && Objects.equals(debounceKey, other.debounceKey)
                && Objects.equals(fairnessKey, other.fairnessKey);
    }
}
