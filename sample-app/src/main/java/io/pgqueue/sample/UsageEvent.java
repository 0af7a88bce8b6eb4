package io.pgqueue.sample;

import java.math.BigDecimal;

/**
 * Energy used by an account, collected into ten-second buckets for one aggregated write.
 *
 * @param accountId the customer account
 * @param kwh energy of one reading
 */
public record UsageEvent(long accountId, BigDecimal kwh) {
}
