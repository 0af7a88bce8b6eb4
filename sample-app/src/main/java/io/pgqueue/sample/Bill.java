package io.pgqueue.sample;

import java.math.BigDecimal;

/**
 * A bill to email after a reading was recorded.
 *
 * @param accountId the customer account
 * @param amount the amount charged for the reading
 */
public record Bill(long accountId, BigDecimal amount) {
}
